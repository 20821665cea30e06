import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { readGgufTemplate } from './gguf-chat-template.js';

const GGUF_UINT32 = 4;
const GGUF_STRING = 8;

/** A GGUF v3 file with metadata only (no tensors), as github.com/ggml-org/ggml docs/gguf.md lays it out. */
function metadataOnlyGguf(entries: ReadonlyArray<[string, string | number]>): Buffer {
  const parts: Buffer[] = [];
  const u32 = (value: number) => {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    return buffer;
  };
  const u64 = (value: number) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    return buffer;
  };
  const text = (value: string) => {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([u64(bytes.length), bytes]);
  };
  parts.push(Buffer.from('GGUF'), u32(3), u64(0), u64(entries.length));
  for (const [key, value] of entries) {
    parts.push(text(key));
    if (typeof value === 'string') parts.push(u32(GGUF_STRING), text(value));
    else parts.push(u32(GGUF_UINT32), u32(value));
  }
  return Buffer.concat(parts);
}

const directory = mkdtempSync(join(tmpdir(), 'cachet-gguf-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('readGgufTemplate', () => {
  it("reads the model's own chat template, architecture and sliding window from the file's metadata", async () => {
    const path = join(directory, 'gemma.gguf');
    const template = "{{ bos_token }}{% for message in messages %}<start_of_turn>{{ message['role'] }}{% endfor %}";
    writeFileSync(
      path,
      metadataOnlyGguf([
        ['general.architecture', 'gemma3'],
        ['gemma3.attention.sliding_window', 1024],
        ['tokenizer.chat_template', template],
      ]),
    );
    await expect(readGgufTemplate(path)).resolves.toEqual({
      architecture: 'gemma3',
      chatTemplate: template,
      slidingWindow: 1024,
    });
  });

  it('says so when the file carries no template, and when it is not a GGUF file', async () => {
    const bare = join(directory, 'bare.gguf');
    writeFileSync(bare, metadataOnlyGguf([['general.architecture', 'llama']]));
    await expect(readGgufTemplate(bare)).rejects.toThrow(/carries no chat template/);
    const notGguf = join(directory, 'notes.txt');
    writeFileSync(notGguf, 'hello');
    await expect(readGgufTemplate(notGguf)).rejects.toBeInstanceOf(ValidationError);
    await expect(readGgufTemplate(join(directory, 'missing.gguf'))).rejects.toBeInstanceOf(ValidationError);
  });
});
