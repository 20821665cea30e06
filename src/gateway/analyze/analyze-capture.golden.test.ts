import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAnalyze } from '../../cli/commands/analyze.js';
import { analyzeCapture } from './analyze-capture.js';
import { variedCapture } from './test-support/varied-capture.js';

/**
 * `__fixtures__/varied-capture.analysis.json` is `analyzeCapture`'s output on the varied capture
 * as written before the speed work on `cachet analyze` (memoised token counts, prefix hashes
 * reused across a conversation, no deep clone in the plan): every figure, cause and excerpt
 * must stay the same. Regenerated once since, to add `causeAgreement` per conversation (every
 * other field unchanged). Regenerate it only for a deliberate change of the analysis.
 */
const golden = JSON.parse(readFileSync(new URL('./__fixtures__/varied-capture.analysis.json', import.meta.url), 'utf8'));

describe('analyzeCapture on a varied capture', () => {
  it('gives the recorded analysis, figure for figure', () => {
    expect(JSON.parse(JSON.stringify(analyzeCapture(variedCapture())))).toEqual(golden);
  });

  it('gives it again in the same process (no memo leaks between analyses)', () => {
    analyzeCapture(variedCapture().reverse());
    expect(JSON.parse(JSON.stringify(analyzeCapture(variedCapture())))).toEqual(golden);
  });

  it('gives it streamed from a file, each previous body read again from its line where a miss is diffed', async () => {
    const capture = variedCapture();
    // In time order already, so the file order is the order analyzeCapture judges in.
    expect(capture.map((request) => request.at)).toEqual(capture.map((request) => request.at).sort((a, b) => a - b));
    const file = join(mkdtempSync(join(tmpdir(), 'cachet-analyze-golden-')), 'varied.jsonl');
    writeFileSync(file, `${capture.map((request) => JSON.stringify(request)).join('\n')}\n`);
    const out: string[] = [];
    expect(await runAnalyze(file, { json: true }, { out: (line) => out.push(line), err: (line) => out.push(line) })).toBe(0);
    const streamed = JSON.parse(out.join('\n'));
    expect(streamed.requests.some((request: { changed: unknown }) => request.changed !== null)).toBe(true);
    expect(streamed).toEqual(golden);
  });
});
