import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chatTurn } from '../../gateway/test-support/sessions.js';
import { runAnalyze } from './analyze.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-analyze-shapes-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Four Chat Completions requests for `model`, with no `provider` on the lines (detected from the body). */
function chatCapture(name: string, model: string): string {
  const lines = [1, 2, 3, 4].map((turn) => JSON.stringify({ at: turn * 30_000, body: { ...chatTurn(turn), model } }));
  const file = join(directory, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function analyze(file: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAnalyze(file, { json: true }, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, analysis: JSON.parse(out.join('\n')), err };
}

describe('cachet analyze on captures of other shapes', () => {
  it("judges a DeepSeek Chat Completions body as DeepSeek's (its cache rules and prices), not as OpenAI's at $0", async () => {
    const { code, analysis, err } = await analyze(chatCapture('deepseek.jsonl', 'deepseek-chat'));
    expect(code).toBe(0);
    expect(analysis.conversations[0].provider).toBe('deepseek');
    expect(analysis.totals.costUsd).toBeGreaterThan(0);
    expect(err).toEqual([]);
  });

  it('says on stderr that a model without a price reads $0 for unknown, not free', async () => {
    const { code, analysis, err } = await analyze(chatCapture('mystery.jsonl', 'mystery-model-9'));
    expect(code).toBe(0);
    expect(analysis.totals.costUsd).toBe(0);
    expect(err).toHaveLength(1);
    expect(err[0]).toContain('no price is known for model "mystery-model-9" on openai-chat');
    expect(err[0]).toContain('unknown, not free');
  });
});
