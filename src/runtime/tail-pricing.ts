import { findPrice } from '../cache/pricing.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
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
