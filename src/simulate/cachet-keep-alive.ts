import type { ProviderId } from '../providers/adapter.js';
import { planKeepWarm } from '../runtime/plan-keep-warm.js';
import { prewarmingUnsupportedReason } from '../runtime/prewarming.js';
import { cacheMultipliersFor } from '../runtime/tail-pricing.js';
import { type LongEntry, TTL_LIFETIME_MS } from '../runtime/ttl-policy.js';
import type { IdleContext } from './strategy.js';

/**
 * Cachet's keep-warm in the simulator: after each request, the runtime planner (`planKeepWarm`)
 * prices this idle period on the gaps seen so far (the session's and the prior ones the TTL
 * policy reads) and the prefix the request left cached, at the TTL it wrote, and answers with
 * its schedule — pings before expiry, or none (`let-expire`, or `write-1h`, which the TTL
 * policy carries out at the next request). Only where the model has a pre-warm request.
 */
export function cachetKeepAlive(
  provider: ProviderId,
  gaps: { session: readonly number[]; prior: readonly number[] },
): (idle: IdleContext, state: { model: string; ttl: '5m' | '1h'; longEntry: LongEntry | null }) => number[] {
  return (idle, state) => {
    // A live 1-hour entry of the same model keeps its prefix through the pause without pings.
    const long = state.longEntry?.model === state.model ? state.longEntry : null;
    const protectedForMs = long ? long.at + TTL_LIFETIME_MS['1h'] - idle.at : 0;
    if (idle.cachedTokens === 0 || prewarmingUnsupportedReason(provider, state.model) !== null) return [];
    const plan = planKeepWarm({
      prefixTokens: idle.cachedTokens,
      gapsMs: [...gaps.prior, ...gaps.session],
      ttlMs: TTL_LIFETIME_MS[state.ttl],
      pricing: cacheMultipliersFor(provider, state.model),
      ...(long && protectedForMs > 0 ? { protectedTokens: long.prefixTokens, protectedForMs } : {}),
    });
    return plan.action === 'ping' ? plan.scheduleMs.map((offset) => idle.at + offset) : [];
  };
}
