import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import type { CompactionTimingChoice, CompactionTimingRecord } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import type { CacheMultipliers } from '../providers/shared/price-row.js';
import { planKeepWarm } from '../runtime/plan-keep-warm.js';

export interface IdleTimingInput {
  /** Persisted prefix now (static + history), and after the planned rewrite. */
  prefixTokens: number;
  compactedPrefixTokens: number;
  /** Tokens of the static zone the rewrite leaves unchanged (read from a live entry afterwards). */
  staticTokens: number;
  /** Tokens a rewrite done while the entry is alive writes again (the cost model's `tokensToRebill`). */
  tokensToRebill: number;
  /** Idle periods seen so far (this session's gaps and earlier ones'), ms: the distribution priced. */
  gapsMs: readonly number[];
  /** How long the session has been idle already, ms [0]. */
  idleMs?: number;
  /** Lifetime of the entry, refreshed by every read [Anthropic's 5 minutes]. */
  ttlMs?: number;
  /** How long before expiry the compaction (and a ping) must start, ms [20 s]. */
  marginMs?: number;
  /** The model's cache multipliers on its input rate (`cacheMultipliersFor`): the keep-warm planner's prices. */
  pricing: CacheMultipliers;
  /** The model's input rate, USD per million tokens, to state the costs in USD [unpriced]. */
  inputPerMTok?: number;
  /** Requests expected after the pause, the return included (the cost model's horizon), ≥ 1. */
  remainingRequests: number;
  /**
   * What the summary call costs, input-rate token equivalents (USD ÷ input rate × 10⁶): made
   * while the parent's entry is alive (a fork reads it) and after it expired [0 and 0: the
   * extractive summariser calls no model].
   */
  summaryCost?: { warm: number; cold: number };
  /** False where the model has no pre-warm request: keeping warm is then only a 1-hour write [true]. */
  prewarming?: boolean;
}

/**
 * Decide, for one idle period while a compaction is due, when to compact, by expected cost over
 * the gaps the session has shown and the requests left:
 *
 * - `keep-warm`: do not compact in this pause; hold the prefix as the keep-warm planner prices it
 *   (pings, a 1-hour write, or nothing), and at a warm return compact only if a hot rewrite pays.
 * - `compact-while-cold`: let the entry expire; the next request finds it cold and compacts then
 *   (the prefix is written anyway, so the rewrite re-bills nothing); the summary call is cold.
 * - `compact-before-expiry`: compact just before the entry expires (`compactAtMs` after the
 *   last request): the summary call still reads the parent's cache; a return between then and
 *   expiry re-writes the compacted history that a warm read would have had for free.
 *
 * Costs are input-rate token equivalents of the prefix (pings, the return's read or write, the
 * later requests' reads) plus the summary call; ties go to `compact-while-cold` (the thresholds'
 * own preference), then `compact-before-expiry`. With no gaps learned nothing is priced and the
 * answer is `compact-while-cold`.
 *
 * @example
 * chooseIdleCompaction({ prefixTokens: 120_000, compactedPrefixTokens: 40_000, staticTokens: 8_000,
 *   tokensToRebill: 32_000, gapsMs: [20 * 60_000], remainingRequests: 20, pricing,
 *   summaryCost: { warm: 14_000, cold: 150_000 } }).choice; // 'compact-before-expiry'
 */
export function chooseIdleCompaction(input: IdleTimingInput): CompactionTimingRecord {
  validate(input);
  const ttl = input.ttlMs ?? CACHE_LIFETIMES_MS.anthropic5m;
  const margin = Math.min(input.marginMs ?? 20_000, ttl / 2);
  const compactAt = Math.max(input.idleMs ?? 0, ttl - margin);
  const { read, write5m } = input.pricing;
  const { prefixTokens: before, compactedPrefixTokens: after, staticTokens } = input;
  const summary = input.summaryCost ?? { warm: 0, cold: 0 };
  const later = Math.max(0, input.remainingRequests - 1);
  const keepWarm = planKeepWarm({
    prefixTokens: before,
    gapsMs: input.gapsMs,
    pricing: input.pricing,
    ttlMs: ttl,
    marginMs: margin,
    ...(input.idleMs === undefined ? {} : { idleMs: input.idleMs }),
    ...(input.prewarming === false ? { maxPings: 0 } : {}),
  });
  const gaps = input.gapsMs.filter((gap) => gap > (input.idleMs ?? 0));
  const usd = (tokens: number) => (input.inputPerMTok === undefined ? null : (tokens * input.inputPerMTok) / 1e6);
  if (gaps.length === 0) {
    const none = { keepWarm: null, compactWhileCold: 0, compactBeforeExpiry: 0 };
    const reason = 'no gaps learned yet: nothing to price; the thresholds compact when the cache is cold';
    return record('compact-while-cold', null, keepWarm, none, usd, 0, reason);
  }
  // After a warm return: keep the history, or compact then at the hot cost model's price.
  const hotRewrite = summary.warm + staticTokens * read + input.tokensToRebill * write5m - before * read + later * read * after;
  const afterWarmReturn = Math.min(later * read * before, hotRewrite);
  const compacted = later * read * after;
  // Planned once the entry has expired (idle past the TTL), "before expiry" is now: its summary call is cold.
  const summaryAtCompaction = compactAt < ttl ? summary.warm : summary.cold;
  const average = (cost: (gap: number) => number) => gaps.reduce((total, gap) => total + cost(gap), 0) / gaps.length;
  // Keeping warm is an option only when the planner holds the entry (pings or a 1-hour write).
  const held =
    keepWarm.action === 'ping'
      ? keepWarm.expectedCost.ping
      : keepWarm.action === 'write-1h'
        ? keepWarm.expectedCost.write1h
        : null;
  // Planned once the entry has expired unpinged, nothing is left to keep warm in this pause.
  const expired = (input.idleMs ?? 0) >= ttl;
  const costs = {
    // The planner's idle cost already holds the return's prefix (read when kept, else written).
    keepWarm: held === null || expired ? null : held + afterWarmReturn,
    compactWhileCold: average((gap) =>
      gap <= ttl ? read * before + afterWarmReturn : summary.cold + write5m * after + compacted,
    ),
    compactBeforeExpiry: average((gap) => {
      if (gap <= compactAt) return read * before + afterWarmReturn;
      const returnCost = gap <= ttl ? read * staticTokens + write5m * (after - staticTokens) : write5m * after;
      return summaryAtCompaction + returnCost + compacted;
    }),
  };
  let choice: CompactionTimingChoice = 'compact-while-cold';
  let best = costs.compactWhileCold;
  if (costs.compactBeforeExpiry < best - 1e-9) [choice, best] = ['compact-before-expiry', costs.compactBeforeExpiry];
  if (costs.keepWarm !== null && costs.keepWarm < best - 1e-9) [choice, best] = ['keep-warm', costs.keepWarm];
  const saving = costs.compactWhileCold - best;
  const reason =
    choice === 'compact-while-cold'
      ? `over ${gaps.length} idle periods, compacting when the cache is cold costs least`
      : `over ${gaps.length} idle periods, ${choice === 'keep-warm' ? 'keeping the prefix warm' : 'compacting before expiry'} costs ${Math.round(saving)} input-token equivalents less than compacting when cold`;
  return record(choice, choice === 'compact-before-expiry' ? compactAt : null, keepWarm, costs, usd, gaps.length, reason);
}

function record(
  choice: CompactionTimingChoice,
  compactAtMs: number | null,
  keepWarm: ReturnType<typeof planKeepWarm>,
  costs: CompactionTimingRecord['expectedCost'],
  usd: (tokens: number) => number | null,
  gapsPriced: number,
  reason: string,
): CompactionTimingRecord {
  const priced = usd(0) !== null;
  return {
    choice,
    compactAtMs,
    keepWarmAction: keepWarm.action,
    pings: keepWarm.pings,
    pingScheduleMs: keepWarm.scheduleMs,
    expectedCost: costs,
    expectedCostUsd: priced
      ? {
          keepWarm: costs.keepWarm === null ? null : (usd(costs.keepWarm) as number),
          compactWhileCold: usd(costs.compactWhileCold) as number,
          compactBeforeExpiry: usd(costs.compactBeforeExpiry) as number,
        }
      : null,
    gapsPriced,
    reason,
  };
}

function validate(input: IdleTimingInput): void {
  const nonNegative = (value: number | undefined, path: string) => {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ValidationError(`idleTiming.${path}`, 'a finite number ≥ 0', String(value));
    }
  };
  for (const key of [
    'prefixTokens',
    'compactedPrefixTokens',
    'staticTokens',
    'tokensToRebill',
    'idleMs',
    'marginMs',
    'inputPerMTok',
  ] as const) {
    nonNegative(input[key], key);
  }
  nonNegative(input.summaryCost?.warm, 'summaryCost.warm');
  nonNegative(input.summaryCost?.cold, 'summaryCost.cold');
  if (!(Number.isFinite(input.remainingRequests) && input.remainingRequests >= 1)) {
    throw new ValidationError('idleTiming.remainingRequests', 'a finite number ≥ 1', String(input.remainingRequests));
  }
  if (input.staticTokens > input.compactedPrefixTokens) {
    throw new ValidationError(
      'idleTiming.staticTokens',
      `at most compactedPrefixTokens (${input.compactedPrefixTokens})`,
      String(input.staticTokens),
    );
  }
}
