import { findPrice } from '../cache/pricing.js';
import type { ProviderId } from '../providers/adapter.js';
import { STANDARD_ANTHROPIC_MULTIPLIERS } from '../providers/anthropic/prices.js';
import { providerEntry } from '../providers/registry.js';
import { type CacheMultipliers, cacheMultipliersOf } from '../providers/shared/price-row.js';
import { ANTHROPIC_TAIL_PRICING, type TailScopePricing } from '../session/choose-tail-scope.js';

/** Local engines bill nothing; what counts is processed tokens: a read costs none, a write one. */
const PROCESSED_TOKENS: TailScopePricing = { input: 1, write: 1, read: 0 };

/**
 * Multipliers for the tail-scope decision from the price table: the 5-minute write and the read
 * rate over the input rate of `model` (automatic caches write at the input rate). Local engines
 * count processed tokens; models without a price row get Anthropic's multipliers. Whole-unit
 * caches (DeepSeek) are marked so the scope decision keeps the tail inside the units.
 *
 * @example
 * tailPricingFor('openai-chat', 'gpt-5.2'); // { input: 1, write: 1, read: 0.1 }
 */
export function tailPricingFor(provider: ProviderId, model: string): TailScopePricing {
  const rules = providerEntry(provider).route(model).rules;
  if (rules === 'local') return PROCESSED_TOKENS;
  const row = findPrice(provider, model);
  const wholeUnits = rules === 'deepseek' ? { wholeUnits: true } : {};
  if (!row || row.inputPerMTok <= 0) return { ...ANTHROPIC_TAIL_PRICING, ...wholeUnits };
  return {
    input: 1,
    write: row.cacheWrite5mPerMTok / row.inputPerMTok,
    read: row.cacheReadPerMTok / row.inputPerMTok,
    ...wholeUnits,
  };
}

/**
 * The model's cache multipliers (5-minute and 1-hour write, read, over its input rate) from its
 * price row, for the TTL and keep-warm decisions: Claude Fable 5.1 reads at 0.025×, so a 1-hour
 * write or a keep-warm read pays back far sooner than at the standard 0.1×. Models without a
 * price row get Anthropic's standard multipliers.
 *
 * @example
 * cacheMultipliersFor('anthropic', 'claude-fable-5-1'); // { write5m: 1.25, write1h: 2, read: 0.025 }
 */
export function cacheMultipliersFor(provider: ProviderId, model: string): CacheMultipliers {
  const row = findPrice(provider, model);
  return row && row.inputPerMTok > 0 ? cacheMultipliersOf(row) : STANDARD_ANTHROPIC_MULTIPLIERS;
}
