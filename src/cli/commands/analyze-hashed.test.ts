import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { hashStrings, isHashedBody } from '../../trace/store-content.js';
import { hashedCaptureWarning, runAnalyze } from './analyze.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-analyze-hashed-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Three requests of one conversation, as `cachet proxy --capture` writes them, hashed or not. */
function capture(name: string, hashed: boolean): string {
  const usage = { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 2900 };
  const lines = [1, 2, 3].map((turn) => {
    const body = anthropicTurn(turn);
    return JSON.stringify({ at: turn * 60_000, body: hashed ? hashStrings(body) : body, usage });
  });
  const file = join(directory, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function analyze(file: string, json: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAnalyze(file, { json }, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

describe('cachet analyze on a hash-only capture (the proxy default --store-content hashes)', () => {
  it('tells a hashed body from a body with text', () => {
    const body = anthropicTurn(2);
    expect(isHashedBody(hashStrings(body))).toBe(true);
    expect(isHashedBody(body)).toBe(false);
    expect(isHashedBody({ model: 'claude-sonnet-5', max_tokens: 10 })).toBe(false);
  });

  it('warns on stderr that the plan is judged on hashes, in the text report and under --json', async () => {
    const file = capture('hashed.jsonl', true);
    const text = await analyze(file, false);
    expect(text.code).toBe(0);
    expect(text.err).toEqual([hashedCaptureWarning(file)]);
    const json = await analyze(file, true);
    expect(json.code).toBe(0);
    expect(json.err).toEqual([hashedCaptureWarning(file)]);
    expect(json.out).toHaveLength(1);
    expect(JSON.parse(json.out[0]!).totals.requests).toBe(3);
  });

  it('reports the plan as not judged instead of figures modelled on hashes', async () => {
    const file = capture('hashed-plan.jsonl', true);
    const json = JSON.parse((await analyze(file, true)).out[0]!);
    expect(json.planNotJudged).toBe('not judged (hash-only capture)');
    expect(json.totals.plannedCostUsd).toBeNull();
    expect(json.totals.costUsd).toBeGreaterThan(0);
    expect(json.conversations[0].plannedCostUsd).toBeNull();
    expect(json.conversations[0].plannedReadShare).toBeNull();
    const text = (await analyze(file, false)).out.join('\n');
    expect(text).toContain("Cachet's plan not judged (hash-only capture)");
    expect(text).not.toMatch(/with Cachet's plan \d/);
  });

  it('keeps the plan figures on a capture with the text', async () => {
    const file = capture('full-plan.jsonl', false);
    const json = JSON.parse((await analyze(file, true)).out[0]!);
    expect(json.planNotJudged).toBeUndefined();
    expect(typeof json.totals.plannedCostUsd).toBe('number');
    expect((await analyze(file, false)).out.join('\n')).toMatch(/with Cachet's plan \d/);
  });

  it('says nothing on a capture that keeps the text', async () => {
    const result = await analyze(capture('full.jsonl', false), false);
    expect(result.code).toBe(0);
    expect(result.err).toEqual([]);
  });
});
