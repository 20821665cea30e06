import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileReadError } from './read-regular-file.js';
import { readRegularFileLines } from './read-regular-file-lines.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-read-lines-'));
const write = (name: string, text: string) => {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
};
const collect = async (path: string, options: Parameters<typeof readRegularFileLines>[1]) => {
  const lines: Array<[number, string]> = [];
  for await (const { line, text } of readRegularFileLines(path, options)) lines.push([line, text]);
  return lines;
};

describe('readRegularFileLines', () => {
  it('gives the same lines as splitting the whole text, whatever the chunk size (multi-byte characters split, CRLF, no final newline)', async () => {
    const text = 'première ligne ✓\r\n\n日本語のテキスト\nemoji 🎉 end\r\nlast without newline';
    const expected = text.split('\n').map((line, index): [number, string] => [index + 1, line.replace(/\r$/, '')]);
    const path = write('mixed.txt', text);
    for (const chunkBytes of [1, 2, 3, 5, 7, 64, 1024 * 1024]) {
      expect(await collect(path, { maxLineBytes: 1000, chunkBytes })).toEqual(expected);
    }
  });

  it('refuses a line over the limit at the line it happens, with the lines before it read', async () => {
    const path = write('long.txt', `short\n${'x'.repeat(100)}\nnever reached\n`);
    const seen: number[] = [];
    const read = async () => {
      for await (const { line } of readRegularFileLines(path, { maxLineBytes: 50, chunkBytes: 8 })) seen.push(line);
    };
    const error = await read().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FileReadError);
    expect((error as FileReadError).message).toMatch(/long\.txt: line 2 is longer than the limit of 50 bytes per line/);
    expect(seen).toEqual([1]);
  });

  it('refuses a FIFO and a device before reading', async () => {
    const fifo = join(directory, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await expect(collect(fifo, { maxLineBytes: 10 })).rejects.toThrow(/not a regular file \(a FIFO\)/);
    await expect(collect('/dev/zero', { maxLineBytes: 10 })).rejects.toThrow(/not a regular file \(a device\)/);
    await expect(collect(join(directory, 'missing'), { maxLineBytes: 10 })).rejects.toThrow(/file not found/);
  });
});
