import { totalInputTokens, type Usage } from '../model/usage.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { type PriceSource, ratesForPrompt } from '../providers/shared/price-row.js';
import { findPrice, type PriceRow } from './pricing.js';

/** What one request (or a whole session) cost, by bucket, in USD. */
export interface Cost {
  costUsd: number;
  inputCostUsd: number;
  outputCostUsd: number;
  breakdown: { uncached: number; cacheRead: number; cacheWrite5m: number; cacheWrite1h: number; output: number };
  /** False when no price row matched: figures are 0 and should be shown as unknown. */
  priced: boolean;
  /** True for local engines, which cost nothing per token (report tokens and time instead). */
  free: boolean;
  row: PriceRow | null;
  /** Whose prices: Cachet's own rows, a models file, the genai-prices fallback, or none (unpriced or free). */
  priceSource: PriceSource | null;
}

export interface CostOptions {
  /** Rows that win over the built-in table (your negotiated or newer prices). */
  prices?: readonly PriceRow[];
}

const PER_MILLION = 1_000_000;

/**
 * Cost of one request's usage at the model's prices: uncached input at the input rate, reads
 * at the cache-read rate, writes at the 5-minute or 1-hour write rate, output at the output
 * rate. A row with a long-prompt band (Claude Haiku 5.5 above 100k) prices the whole request at
 * that band's rates when its prompt exceeds the threshold.
 *
 * @example
 * costOf(usage, 'anthropic', 'claude-sonnet-4-5').costUsd;
 * costOf(usage, 'openai-chat', 'my-ft', { prices: [{ ...row, model: 'my-ft' }] });
 */
export function costOf(usage: Usage, provider: ProviderId, model: string, options: CostOptions = {}): Cost {
  return costAtPrice(usage, findPrice(provider, model, options.prices), provider, model);
}

/**
 * `costOf` at a price row already found (`findPrice(provider, model, prices)`, null when none
 * matched): a caller pricing many requests of one model looks the row up once.
 *
 * @example
 * const row = findPrice('anthropic', model);
 * for (const usage of usages) total += costAtPrice(usage, row, 'anthropic', model).costUsd;
 */
export function costAtPrice(usage: Usage, row: PriceRow | null, provider: ProviderId, model: string): Cost {
  if (!row) return zeroCost(providerEntry(provider).route(model).rules === 'local');
  const rates = ratesForPrompt(row, totalInputTokens(usage));
  const breakdown = {
    uncached: (usage.uncachedInputTokens * rates.inputPerMTok) / PER_MILLION,
    cacheRead: (usage.cacheReadTokens * rates.cacheReadPerMTok) / PER_MILLION,
    cacheWrite5m: (usage.cacheWrite5mTokens * rates.cacheWrite5mPerMTok) / PER_MILLION,
    cacheWrite1h: (usage.cacheWrite1hTokens * rates.cacheWrite1hPerMTok) / PER_MILLION,
    output: (usage.outputTokens * rates.outputPerMTok) / PER_MILLION,
  };
  const inputCostUsd = breakdown.uncached + breakdown.cacheRead + breakdown.cacheWrite5m + breakdown.cacheWrite1h;
  return {
    costUsd: inputCostUsd + breakdown.output,
    inputCostUsd,
    outputCostUsd: breakdown.output,
    breakdown,
    priced: true,
    free: false,
    row,
    priceSource: row.priceSource ?? 'cachet',
  };
}

/**
 * What the same request would cost with no caching at all: every input token at the input rate.
 *
 * @example
 * const saved = uncachedCostOf(usage, 'anthropic', model).costUsd - costOf(usage, 'anthropic', model).costUsd;
 */
export function uncachedCostOf(usage: Usage, provider: ProviderId, model: string, options: CostOptions = {}): Cost {
  return costOf(withoutCache(usage), provider, model, options);
}

/** `uncachedCostOf` at a price row already found (see `costAtPrice`). */
export function uncachedCostAtPrice(usage: Usage, row: PriceRow | null, provider: ProviderId, model: string): Cost {
  return costAtPrice(withoutCache(usage), row, provider, model);
}

function withoutCache(usage: Usage): Usage {
  return {
    ...usage,
    uncachedInputTokens: totalInputTokens(usage),
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
  };
}

/** Totals of a session (or any list of requests), with the uncached cost beside them. */
export interface SessionCost {
  costUsd: number;
  inputCostUsd: number;
  uncachedCostUsd: number;
  uncachedInputCostUsd: number;
  /** `1 - inputCost / uncachedInputCost` (0 when nothing was priced). */
  inputSavingsShare: number;
  requests: number;
  unpricedRequests: number;
}

/**
 * Cost of a list of requests, each priced with its own model.
 *
 * @example
 * sessionCostOf(requests.map((request) => ({ usage: request.usage, provider: 'anthropic', model })));
 */
export function sessionCostOf(
  requests: ReadonlyArray<{ usage: Usage; provider: ProviderId; model: string }>,
  options: CostOptions = {},
): SessionCost {
  const total: SessionCost = {
    costUsd: 0,
    inputCostUsd: 0,
    uncachedCostUsd: 0,
    uncachedInputCostUsd: 0,
    inputSavingsShare: 0,
    requests: 0,
    unpricedRequests: 0,
  };
  for (const request of requests) {
    const cost = costOf(request.usage, request.provider, request.model, options);
    const uncached = uncachedCostOf(request.usage, request.provider, request.model, options);
    total.requests += 1;
    if (!cost.priced && !cost.free) total.unpricedRequests += 1;
    total.costUsd += cost.costUsd;
    total.inputCostUsd += cost.inputCostUsd;
    total.uncachedCostUsd += uncached.costUsd;
    total.uncachedInputCostUsd += uncached.inputCostUsd;
  }
  total.inputSavingsShare = total.uncachedInputCostUsd > 0 ? 1 - total.inputCostUsd / total.uncachedInputCostUsd : 0;
  return total;
}

function zeroCost(free: boolean): Cost {
  return {
    costUsd: 0,
    inputCostUsd: 0,
    outputCostUsd: 0,
    breakdown: { uncached: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0 },
    priced: free,
    free,
    row: null,
    priceSource: null,
  };
}
