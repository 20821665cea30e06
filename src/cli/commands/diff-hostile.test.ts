import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wireFormatMismatch } from '../../cache/break/wire-format-mismatch.js';
import { anthropicRequest, chatRequest } from '../../cache/test-support/break-fixtures.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { DIFF_BAD_INPUT_EXIT_CODE, runDiff } from './diff.js';

const { directory, file } = temporaryFiles('cachet-diff-hostile-');

describe('cachet diff on hostile input', () => {
  const good = file('good.json', anthropicRequest({}));

  it('refuses JSON nested 100,000 deep with exit 2 naming the file (no stack overflow)', async () => {
    const deep = file('deep.json', `{"model":"x","messages":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const io = captureOutput();
    expect(await runDiff(deep, good, {}, io.output)).toBe(DIFF_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/deep\.json: body\.messages.*nested at most 256 levels deep/);
  });

  it('refuses a FIFO with exit 2 instead of hanging on it', async () => {
    const fifo = join(directory, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const io = captureOutput();
    expect(await runDiff(fifo, good, {}, io.output)).toBe(DIFF_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(/pipe\.json: not a regular file \(a FIFO\)/);
  });

  it('says --provider openai-responses does not match Anthropic bodies instead of "no break"', async () => {
    const before = file('system-a.json', anthropicRequest({ persona: 'You are a careful coding agent.' }));
    const after = file('system-b.json', anthropicRequest({ persona: 'You are a reckless coding agent.' }));
    const io = captureOutput();
    expect(await runDiff(before, after, { provider: 'openai-responses' }, io.output)).toBe(DIFF_BAD_INPUT_EXIT_CODE);
    expect(io.err.join('\n')).toMatch(
      /system-a\.json: --provider openai-responses does not match this body: .*looks like an anthropic body/,
    );
    expect(io.out).toEqual([]);
    // Detected, the same pair names the system change.
    const detected = captureOutput();
    expect(await runDiff(before, after, {}, detected.output)).toBe(0);
    expect(detected.out.join('\n')).toMatch(/first divergence: system/);
  });

  it('detects every pairing of a body with a format it is not (and accepts its own)', () => {
    const anthropic = anthropicRequest({});
    const chat = chatRequest({});
    const responses = { model: 'gpt-5', instructions: 'Be brief.', input: [{ role: 'user', content: 'hi' }] };
    expect(wireFormatMismatch(anthropic, 'anthropic')).toBeNull();
    expect(wireFormatMismatch(chat, 'openai-chat')).toBeNull();
    expect(wireFormatMismatch(responses, 'openai-responses')).toBeNull();
    for (const format of ['openai-chat', 'openrouter', 'openai-compatible', 'openai-responses'] as const) {
      expect(wireFormatMismatch(anthropic, format)).toMatch(/does not match/);
    }
    for (const format of ['anthropic', 'openai-responses'] as const)
      expect(wireFormatMismatch(chat, format)).toMatch(/does not match/);
    for (const format of ['anthropic', 'openai-chat'] as const)
      expect(wireFormatMismatch(responses, format)).toMatch(/does not match/);
  });
});
