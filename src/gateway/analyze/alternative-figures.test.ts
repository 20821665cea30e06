import { describe, expect, it } from 'vitest';
import type { CacheVerdict } from '../../cache/models/cache-verdict.js';
import { emptyUsage, type Usage } from '../../model/usage.js';
import { alternativeUsage } from './alternative-figures.js';

const usageOf = (read: number, write5m: number, uncached: number, output = 0): Usage => ({
  ...emptyUsage(),
  cacheReadTokens: read,
  cacheWrite5mTokens: write5m,
  uncachedInputTokens: uncached,
  outputTokens: output,
});
const verdictOf = (read: number, write5m: number, uncached: number): CacheVerdict =>
  ({
    usage: usageOf(read, write5m, uncached),
    cacheReadTokens: read,
    inputTokens: read + write5m + uncached,
  }) as CacheVerdict;

describe('alternativeUsage: a modelled alternative on the actual request scale', () => {
  it('is the actual usage when the model judges the alternative as the body sent (the provider counts 30% fewer tokens)', () => {
    const actual = { usage: usageOf(700, 70, 0, 500), verdict: verdictOf(1000, 100, 0) };
    expect(alternativeUsage(actual, verdictOf(1000, 100, 0))).toEqual(actual.usage);
  });

  it('moves the actual by what the model says changes, in the provider token counts, keeping its output tokens', () => {
    const actual = { usage: usageOf(0, 0, 700, 500), verdict: verdictOf(0, 0, 1000) };
    expect(alternativeUsage(actual, verdictOf(900, 100, 0))).toEqual(usageOf(630, 70, 0, 500));
  });

  it('does not count twice a read the provider gave the body sent that the model did not see', () => {
    const actual = { usage: usageOf(600, 0, 400, 0), verdict: verdictOf(0, 0, 1000) };
    const moved = alternativeUsage(actual, verdictOf(800, 200, 0));
    expect(moved.cacheReadTokens).toBe(800);
    expect(moved.cacheReadTokens + moved.cacheWrite5mTokens + moved.uncachedInputTokens).toBe(1000);
  });
});
