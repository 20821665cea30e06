import { z } from 'zod';

/**
 * Provider usage normalized to one shape. Every figure is a token count; `raw` keeps the
 * provider's own payload so nothing reported is lost.
 */
export interface Usage {
  /** Input tokens billed at the full rate (not read from and not written to the cache). */
  uncachedInputTokens: number;
  cacheReadTokens: number;
  /** Tokens written to the cache with a 5-minute lifetime (or the provider's default). */
  cacheWrite5mTokens: number;
  /** Tokens written to the cache with a 1-hour lifetime. */
  cacheWrite1hTokens: number;
  outputTokens: number;
  /** Reasoning tokens when reported separately (already included in `outputTokens`). */
  reasoningTokens: number;
  raw: unknown;
  /**
   * The provider's own reason for a cache miss, when the request asked for it (Anthropic
   * `diagnostics.cache_miss_reason`); absent when not requested or not reported.
   */
  cacheMissReason?: ProviderCacheMissReason | null;
}

/** A provider's server-side cache-miss diagnosis, kept beside Cachet's own cause. */
export interface ProviderCacheMissReason {
  /** As sent: `model_changed`, `system_changed`, `tools_changed`, `messages_changed`, `previous_message_not_found`, `unavailable`. */
  type: string;
  /** Tokens the server says would have been read had the prefix matched; null when not given. */
  missedTokens: number | null;
}

export function emptyUsage(raw: unknown = null): Usage {
  return {
    uncachedInputTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    raw,
  };
}

export function cacheWriteTokens(usage: Usage): number {
  return usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
}

/** Every input token of the request: uncached, read and written. */
export function totalInputTokens(usage: Usage): number {
  return usage.uncachedInputTokens + usage.cacheReadTokens + cacheWriteTokens(usage);
}

const tokenCount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * The figures of a `Usage` as they must be to be published or summed: whole, non-negative,
 * finite token counts (`raw` and `cacheMissReason` are passed through as they came). Every hook
 * that takes usage from outside (drop-ins, exporters, trace stores) checks it with this schema.
 */
export const usageSchema = z.object({
  uncachedInputTokens: tokenCount,
  cacheReadTokens: tokenCount,
  cacheWrite5mTokens: tokenCount,
  cacheWrite1hTokens: tokenCount,
  outputTokens: tokenCount,
  reasoningTokens: tokenCount,
});
