/** Price multipliers on the base input rate for a provider with explicit cache entries. */
export interface CachePriceMultipliers {
  /** Cost of writing one token into the cache (Anthropic 5m: 1.25, 1h: 2). */
  write: number;
  /** Cost of reading one cached token (Anthropic: 0.1). */
  read: number;
}

export interface PrefixCostInput {
  /** Requests the session is expected to make. */
  requests: number;
  /** Tokens of the static prefix (up to the first breakpoint). */
  prefixTokens: number;
  /** Tokens each request adds to the cacheable prefix (the previous reply and new input). */
  growthTokensPerRequest: number;
  /** The provider writes no entry for a prefix shorter than this. */
  floorTokens: number;
  prices: CachePriceMultipliers;
}

/**
 * Input cost of a session's cacheable prefix, in base-rate token equivalents, under the rules
 * of a provider that writes an entry at the end of each request's prefix when it clears the
 * floor, and reads the previous request's entry. Requests are assumed to come within the TTL;
 * the uncached part after the last breakpoint (tail, new user text) is the same with or without
 * padding and left out.
 *
 * @example
 * // 265 tokens, never cached, ten requests: 2,650 token equivalents.
 * prefixCost({ requests: 10, prefixTokens: 265, growthTokensPerRequest: 0, floorTokens: 4096, prices: { write: 1.25, read: 0.1 } });
 */
export function prefixCost(input: PrefixCostInput): number {
  let total = 0;
  let previousEntry = 0;
  for (let request = 1; request <= input.requests; request++) {
    const prefix = input.prefixTokens + input.growthTokensPerRequest * (request - 1);
    if (prefix < input.floorTokens) {
      total += prefix;
      previousEntry = 0;
      continue;
    }
    total += previousEntry * input.prices.read + (prefix - previousEntry) * input.prices.write;
    previousEntry = prefix;
  }
  return total;
}
