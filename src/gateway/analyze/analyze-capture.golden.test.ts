import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
});
