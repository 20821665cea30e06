import type { CacheVerdict } from './cache-verdict.js';

/** The fields every Anthropic verdict opens with. */
export interface VerdictBase {
  index: number;
  at: number;
  inputTokens: number;
  tokensEstimated: boolean;
  counter: string;
  warnings: string[];
}

/**
 * `buildVerdict({ ...base, ...figures, rejected: null })`, written as one literal per shape: the
 * same keys in the same order (`missedTokens` only when the detector measured the miss), where
 * two spreads (one of them conditional) cost more than the rest of judging a repeated history.
 */
export function judgedVerdict(
  base: VerdictBase,
  figures: Pick<
    CacheVerdict,
    'cacheReadTokens' | 'cacheWrite5mTokens' | 'cacheWrite1hTokens' | 'readFrom' | 'missCause' | 'explanation'
  > & {
    missedTokens: number | undefined;
  },
): CacheVerdict {
  const { cacheReadTokens, cacheWrite5mTokens, cacheWrite1hTokens, readFrom, missCause, missedTokens, explanation } = figures;
  const cacheWriteTokens = cacheWrite5mTokens + cacheWrite1hTokens;
  const uncachedTokens = Math.max(0, base.inputTokens - cacheReadTokens - cacheWriteTokens);
  const usage = {
    uncachedInputTokens: uncachedTokens,
    cacheReadTokens,
    cacheWrite5mTokens,
    cacheWrite1hTokens,
    outputTokens: 0,
    reasoningTokens: 0,
    raw: null,
  };
  const { index, at, inputTokens, tokensEstimated, counter, warnings } = base;
  if (missedTokens === undefined) {
    return {
      index,
      at,
      inputTokens,
      tokensEstimated,
      counter,
      warnings,
      cacheReadTokens,
      cacheWrite5mTokens,
      cacheWrite1hTokens,
      readFrom,
      missCause,
      explanation,
      rejected: null,
      cacheWriteTokens,
      uncachedTokens,
      usage,
    };
  }
  return {
    index,
    at,
    inputTokens,
    tokensEstimated,
    counter,
    warnings,
    cacheReadTokens,
    cacheWrite5mTokens,
    cacheWrite1hTokens,
    readFrom,
    missCause,
    missedTokens,
    explanation,
    rejected: null,
    cacheWriteTokens,
    uncachedTokens,
    usage,
  };
}
