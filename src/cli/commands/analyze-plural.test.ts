import { describe, expect, it } from 'vitest';
import { anthropicTurn } from '../../gateway/test-support/sessions.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { runAnalyze } from './analyze.js';

const { file } = temporaryFiles('cachet-analyze-plural-');
const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);

describe("cachet analyze's counts", () => {
  it('says "1 request in 1 conversation", not "1 requests in 1 conversations"', async () => {
    const path = file('one.jsonl', `${JSON.stringify({ at: T0, body: anthropicTurn(1) })}\n`);
    const io = captureOutput();
    expect(await runAnalyze(path, {}, io.output)).toBe(0);
    const report = io.out.join('\n');
    expect(report.startsWith('1 request in 1 conversation: ')).toBe(true);
    expect(report).toMatch(/^conversation \S+ \([^)]*\): 1 request, read share/m);
  });
});
