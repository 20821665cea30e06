import { findPrice } from '../cache/pricing.js';
import type { ProviderId } from '../providers/adapter.js';
import { planKeepWarm } from '../runtime/plan-keep-warm.js';
import { prewarmingParamsReason, prewarmingUnsupportedReason } from '../runtime/prewarming.js';
import { type GapCounts, joinGaps, SortedGaps } from '../runtime/sorted-gaps.js';
import { cacheMultipliersFor } from '../runtime/tail-pricing.js';
import { type LongEntry, TTL_LIFETIME_MS } from '../runtime/ttl-policy.js';
import type { IdleContext, KeepAliveSchedule } from './strategy.js';

/**
 * Cachet's keep-warm in the simulator: after each request, the runtime planner (`planKeepWarm`)
 * prices this idle period on the gaps seen so far (the session's and the prior ones the TTL
 * policy reads) and the prefix the request left cached, at the TTL it wrote, with the part a
 * live 1-hour entry keeps, and answers with its schedule — pings before the short entry expires,
 * a ping just before the 1-hour entry expires, or none (`let-expire`, or `write-1h`, which the
 * TTL policy carries out at the next request). Only where the model has a pre-warm request.
 * `gaps.session` only grows (a gap per request): its new gaps are added to a sorted copy, so a
 * plan costs O(log gaps), not a pass over the whole workload's gaps.
 */
export function cachetKeepAlive(
  provider: ProviderId,
  gaps: { session: readonly number[]; prior: readonly number[] },
): (idle: IdleContext, state: { model: string; ttl: '5m' | '1h'; longEntry: LongEntry | null }) => KeepAliveSchedule {
  // Built at the first plan, so gaps are checked only where they are priced, as before.
  let sorted: { session: SortedGaps; all: GapCounts } | null = null;
  const gapsSoFar = (): GapCounts => {
    if (sorted === null) {
      const session = new SortedGaps([], 'session gaps');
      sorted = { session, all: joinGaps(new SortedGaps(gaps.prior, 'prior gaps'), session) };
    }
    const { session } = sorted;
    for (let index = session.size; index < gaps.session.length; index++) session.add(gaps.session[index] as number);
    return sorted.all;
  };
  return (idle, state) => {
    // A live 1-hour entry of the same model keeps its prefix through the pause without pings.
    const long = state.longEntry?.model === state.model ? state.longEntry : null;
    const protectedForMs = long ? long.at + TTL_LIFETIME_MS['1h'] - idle.at : 0;
    // A thinking request takes no pre-warm request (`keepWarmBody` refuses it; the simulator sends no such ping).
    const refused = prewarmingParamsReason(idle.turn.params) ?? prewarmingUnsupportedReason(provider, state.model);
    if (idle.cachedTokens === 0 || refused !== null) {
      return { times: [], expectedSavingUsd: null };
    }
    const inputPerMTok = findPrice(provider, state.model)?.inputPerMTok;
    const plan = planKeepWarm({
      prefixTokens: idle.cachedTokens,
      gapsMs: gapsSoFar(),
      ttlMs: TTL_LIFETIME_MS[state.ttl],
      pricing: cacheMultipliersFor(provider, state.model),
      ...(inputPerMTok === undefined ? {} : { inputPerMTok }),
      ...(long && protectedForMs > 0
        ? {
            protectedTokens: Math.min(long.prefixTokens, idle.cachedTokens),
            protectedForMs,
            protectedTtlMs: TTL_LIFETIME_MS['1h'],
          }
        : {}),
    });
    if (plan.action !== 'ping') return { times: [], expectedSavingUsd: plan.expectedSavingUsd };
    return { times: plan.scheduleMs.map((offset) => idle.at + offset), expectedSavingUsd: plan.expectedSavingUsd };
  };
}
