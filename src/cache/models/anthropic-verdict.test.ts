import { describe, expect, it } from 'vitest';
import { judgedVerdict } from './anthropic-verdict.js';
import { buildVerdict } from './cache-verdict.js';

/** The Anthropic model's verdict literal must print exactly as the spread it replaced (reports print verdicts key by key). */
describe('judgedVerdict', () => {
  const base = {
    index: 3,
    at: 1_700_000_000_000,
    inputTokens: 12_000,
    tokensEstimated: true,
    counter: 'estimate',
    warnings: ['w'],
  };
  const figures = {
    cacheReadTokens: 9_000,
    cacheWrite5mTokens: 1_500,
    cacheWrite1hTokens: 500,
    readFrom: { path: 'messages[4].content[0]', writtenAt: 1_699_999_990_000 },
    explanation: ['Read 9,000 tokens.'],
  };

  it('equals buildVerdict over the spread figures, key order included, with and without a measured miss', () => {
    for (const missCause of [null, 'history-edited'] as const) {
      for (const missedTokens of [undefined, 0, 2_048]) {
        // The spread the model wrote before (anthropic-cache-model.ts), in its order.
        const spread = buildVerdict({
          ...base,
          cacheReadTokens: figures.cacheReadTokens,
          cacheWrite5mTokens: figures.cacheWrite5mTokens,
          cacheWrite1hTokens: figures.cacheWrite1hTokens,
          readFrom: figures.readFrom,
          missCause,
          ...(missedTokens !== undefined ? { missedTokens } : {}),
          explanation: figures.explanation,
          rejected: null,
        });
        const literal = judgedVerdict(base, { ...figures, missCause, missedTokens });
        expect(JSON.stringify(literal)).toBe(JSON.stringify(spread));
        expect(Object.keys(literal)).toEqual(Object.keys(spread));
        expect(literal).toStrictEqual(spread);
      }
    }
  });

  it('never bills a negative uncached count', () => {
    const verdict = judgedVerdict({ ...base, inputTokens: 100 }, { ...figures, missCause: null, missedTokens: undefined });
    expect(verdict.uncachedTokens).toBe(0);
    expect(verdict.cacheWriteTokens).toBe(2_000);
  });
});
