import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { readCaptureLines } from '../../gateway/analyze/read-capture.js';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { ANALYZE_BAD_INPUT_EXIT_CODE, registerAnalyzeCommand, runAnalyze } from './analyze.js';

const { directory, file } = temporaryFiles('cachet-analyze-hostile-');
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const line = (at: number, body: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ at, body, ...extra });
const goodLine = line(T0, anthropicTurn(1));

describe('cachet analyze on hostile input (#21 items 6 and 11)', () => {
  it('refuses a body nested 100,000 deep with exit 2 naming file and line (no stack overflow)', async () => {
    const deep = `{"at":${T0 + 1},"body":{"model":"claude-sonnet-5","max_tokens":1,"messages":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const path = file('deep.jsonl', `${goodLine}\n${deep}\n`);
    const io = captureOutput();
    expect(await runAnalyze(path, {}, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/deep\.jsonl:2: body\.messages.*nested at most 256 levels deep/);
    expect(io.out).toEqual([]);
  });

  it('refuses a FIFO with exit 2 instead of hanging on it', async () => {
    const fifo = join(directory, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const io = captureOutput();
    expect(await runAnalyze(fifo, {}, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/pipe\.jsonl: not a regular file \(a FIFO\)/);
  });

  it('refuses /dev/zero (a device that never ends) and a directory with exit 2', async () => {
    for (const [path, kind] of [
      ['/dev/zero', 'a device'],
      [directory, 'a directory'],
    ] as const) {
      const io = captureOutput();
      expect(await runAnalyze(path, {}, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
      expect(io.err.join('\n')).toContain(`${path}: not a regular file (${kind})`);
    }
  });

  it('refuses a line over the per-line limit as it reads it, naming the line', async () => {
    const path = file('long.jsonl', `${goodLine}\n\n${line(T0 + 1, { ...anthropicTurn(2), padding: 'x'.repeat(50_000) })}\n`);
    const read = async () => {
      for await (const _ of readCaptureLines(path, { maxLineBytes: 40_000 })) {
        // reading is the test
      }
    };
    expect(goodLine.length).toBeLessThan(40_000);
    await expect(read()).rejects.toThrow(/long\.jsonl:3: this line is longer than the limit of 39\.1 KiB per line/);
  });

  it('names file and line for a Gemini body (a format analyze does not judge)', async () => {
    const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 10 } };
    const path = file('gemini.jsonl', `${goodLine}\n${line(T0 + 1, gemini)}\n`);
    const io = captureOutput();
    expect(await runAnalyze(path, {}, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/^cachet analyze: .*gemini\.jsonl:2: provider: .*\(got gemini/);
  });

  it('rejects --limit -1, abc, 1.5 and 1e20 before reading anything', async () => {
    const path = file('ok.jsonl', `${goodLine}\n`);
    for (const limit of ['-1', 'abc', '1.5', '1e20', '99999999999999999999']) {
      const errors: string[] = [];
      const program = new Command().exitOverride().configureOutput({ writeErr: (text) => errors.push(text) });
      registerAnalyzeCommand(program);
      await expect(program.parseAsync(['analyze', path, '--limit', limit], { from: 'user' })).rejects.toThrow(
        /--limit.*expected a whole number from 0/,
      );
    }
    const io = captureOutput();
    expect(await runAnalyze(path, { limit: -1 }, io.output)).toBe(ANALYZE_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/--limit: expected a whole number from 0/);
  });

  it('reads CRLF endings, blank lines and multi-byte characters as the lines they are', async () => {
    const bodies = [1, 2, 3].map((turn) => {
      const body = anthropicTurn(turn, { conversation: 'é✓' });
      (body.messages[0]!.content as Array<{ text: string }>)[0]!.text += ' café ✓ 日本語';
      return body;
    });
    const path = file('crlf.jsonl', `${bodies.map((body, index) => line(T0 + index, body)).join('\r\n')}\r\n\r\n`);
    const read: unknown[] = [];
    for await (const { request, line: number } of readCaptureLines(path)) read.push([number, request.body]);
    expect(read).toEqual(bodies.map((body, index) => [index + 1, body]));
  });

  it('lists each conversation its own requests, numbered from 1, with the rest counted past --limit', async () => {
    const lines: string[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      for (const conversation of ['a', 'b']) {
        lines.push(line(T0 + turn * 1000, anthropicTurn(turn, { conversation }), { conversation }));
      }
    }
    const path = file('two.jsonl', lines.join('\n'));
    const io = captureOutput();
    expect(await runAnalyze(path, { limit: 2 }, io.output)).toBe(0);
    const report = io.out.join('\n');
    const section = (id: string) => report.slice(report.indexOf(`conversation ${id} `)).split('\n\n')[0]!;
    const numbers = (text: string) => [...text.matchAll(/^\s*(\d+)\s+[\d,]+\s+/gm)].map((match) => Number(match[1]));
    expect(numbers(section('a'))).toEqual([1, 3]);
    expect(numbers(section('b'))).toEqual([2, 4]);
    expect(section('a')).toContain('… 1 more (--limit, or --json for all)');
    expect(report.startsWith('6 requests in 2 conversations')).toBe(true);
  });
});
