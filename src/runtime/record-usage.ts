import { type CostOptions, costOf, uncachedCostOf } from '../cache/cost.js';
import type { CachetEvent } from '../events/catalog.js';
import type { Usage } from '../model/usage.js';
import type { ProviderId } from '../providers/adapter.js';
import type { Session } from '../session/session.js';

/** What one request cost, and what it would have cost with no cache at all. */
export interface RequestCost {
  costUsd: number;
  uncachedCostUsd: number;
}

/** Prices normalized usage for a model (the pricing table lives in src/cache). */
export type PriceUsage = (usage: Usage, model: string) => RequestCost;

export interface RecordUsageOptions {
  turn: number;
  step: number;
  /** Prices the usage; without it cost figures are 0 (the event still records the tokens). */
  price?: PriceUsage;
  /** Event time; defaults to the session's clock. */
  at?: number;
  /** The model that served the request; defaults to the session's model. */
  model?: string;
}

/**
 * A `PriceUsage` from Cachet's pricing table (src/cache/pricing.ts) for one provider; pass
 * `prices` to override rows with your own. Unknown models price at 0.
 *
 * @example
 * recordUsage(session, usage, { turn: 1, step: 0, price: pricedBy('anthropic') });
 */
export function pricedBy(provider: ProviderId, options: CostOptions = {}): PriceUsage {
  return (usage, model) => ({
    costUsd: costOf(usage, provider, model, options).costUsd,
    uncachedCostUsd: uncachedCostOf(usage, provider, model, options).costUsd,
  });
}

/**
 * The request cycle's second half: price the provider's reported usage and publish
 * `usage.recorded` with the cost and the uncached cost beside it.
 *
 * @example
 * const { costUsd } = recordUsage(session, adapter.parseUsage(response), { turn: 2, step: 0, price });
 */
export function recordUsage(
  session: Session,
  usage: Usage,
  options: RecordUsageOptions,
): RequestCost & { event: CachetEvent<'usage.recorded'> | null } {
  const model = options.model ?? session.model;
  const cost = options.price ? options.price(usage, model) : { costUsd: 0, uncachedCostUsd: 0 };
  const event =
    session.bus?.emit('usage.recorded', session.id, options.at ?? session.clock(), {
      turn: options.turn,
      step: options.step,
      model,
      usage,
      costUsd: cost.costUsd,
      uncachedCostUsd: cost.uncachedCostUsd,
    }) ?? null;
  return { ...cost, event };
}
