import type { CachePriceMultipliers } from './options.js';

export interface RewriteCostInput {
  /** Persisted prefix tokens (static + history) before and after the rewrite. */
  prefixBefore: number;
  prefixAfter: number;
  /** Tokens of the unchanged static zone (still read from cache after the rewrite). */
  staticTokens: number;
  /** Tokens from the first changed message to the end of the new history: written again. */
  tokensToRebill: number;
  cacheHot: boolean;
  expectedRemainingRequests: number;
  prices: CachePriceMultipliers;
}

export interface RewriteCost {
  /** Input-rate token equivalents the rewrite costs now, beyond what the next request would pay anyway. */
  extraCostNow: number;
  /** Input-rate token equivalents saved on each later request. */
  savingPerRequest: number;
  /** Requests after which the rewrite has paid for itself (Infinity when it never does). */
  breakEvenRequests: number;
  pays: boolean;
}

/**
 * Does a rewrite pay for itself? With a hot cache, keeping the history costs `prefixBefore x read`
 * on the next request; rewriting costs `static x read + rebill x write`. Each later request then
 * reads `prefixAfter` instead of `prefixBefore`. With a cold cache the prefix is written anyway,
 * so the rewrite only saves (`prefixAfter` written instead of `prefixBefore`).
 */
export function evaluateRewriteCost(input: RewriteCostInput): RewriteCost {
  const { write, read } = input.prices;
  const saved = Math.max(0, input.prefixBefore - input.prefixAfter);
  const savingPerRequest = saved * read;
  const extraCostNow = input.cacheHot
    ? input.staticTokens * read + input.tokensToRebill * write - input.prefixBefore * read
    : (input.prefixAfter - input.prefixBefore) * write;
  if (extraCostNow <= 0) return { extraCostNow, savingPerRequest, breakEvenRequests: 0, pays: saved > 0 };
  const breakEvenRequests = savingPerRequest > 0 ? extraCostNow / savingPerRequest : Number.POSITIVE_INFINITY;
  return { extraCostNow, savingPerRequest, breakEvenRequests, pays: breakEvenRequests <= input.expectedRemainingRequests };
}
