import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import { ANTHROPIC_CACHE_PRICING, type AnthropicTtl } from '../providers/anthropic/models.js';
import { type GapSample, type GapTally, joinTallies, tallyOf } from './gap-tally.js';
import { KEEP_WARM_DEFAULTS } from './plan-keep-warm.js';

const ONE_HOUR = CACHE_LIFETIMES_MS.anthropic1h;

/**
 * Gaps a segment written at 5 minutes stays exposed for: the next request's small write usually
 * extends a 1-hour entry over it, so the risk spans about two gaps (measured on the bundled
 * long-session workload before gaps were priced by request kind: 1 → 2.8% regret, 2 → 1.9%,
 * 3 → 2.1%; with them, 1 gap lowers claims-agent-bedrock to 1.8% but raises due-diligence-subagents
 * to 5.7% and long-session-idle-gaps to 1.8%).
 */
const RISK_HORIZON_GAPS = 2;

export interface TtlPolicyInput {
  /**
   * Gaps between consecutive requests of the session so far, in ms. This and the other gap
   * inputs take a list or its `GapTally` (`tallyGaps`, `addGap`): a caller that learns one gap
   * per request keeps the tally, and the choice costs the same at the thousandth request.
   */
  gapsMs: GapSample;
  /**
   * Gaps seen in earlier sessions of the same deployment (for example the request times of
   * past sessions in the trace store), in ms. They count like the session's own gaps, so a
   * deployment whose users pause can start on 1 hour instead of paying one full re-write at
   * the session's first pause. Without them the policy is purely online.
   */
  priorGapsMs?: GapSample;
  /**
   * Gaps that followed earlier requests of this request's kind (a turn start, whose last message
   * is the user's, or a tool-loop step, whose last message is a tool result), this session's and
   * earlier sessions', in ms. The gap right after this request is priced on them — after a turn
   * start the model usually calls a tool, after a tool step it often answers and the user reads —
   * shrunk towards the share over all gaps while they are few. Absent: every gap counts alike.
   */
  kindGapsMs?: GapSample;
  /**
   * A keep-warm planner pings the entry through pauses where that costs less than the re-write
   * (`planKeepWarm`, as `startKeepWarm`, the proxy's `--keep-warm` and the simulator's Cachet do)
   * [false]: a pause then costs at most those pings — reads of the whole prefix, one per lifetime
   * the pause outlasts — so a 1-hour write saves no more than they would cost.
   */
  keepWarm?: boolean;
  /**
   * Tokens the next request is expected to write (the session's growth per request) [unknown]. A
   * pause in the gap after next then costs the re-write of this segment plus that one, or the
   * pings through it, whichever is less: what the 1-hour write saves there is the difference it
   * makes to that cost, none when the next segment alone is worth pinging for.
   */
  expectedGrowthTokens?: number;
  /** Tokens the cache will hold after this request (its cacheable prefix). */
  prefixTokens: number;
  /**
   * Tokens this request writes: new since the previous entry when the prefix only grew, the
   * whole prefix after any break (tools, model, compaction, expiry). `estimateWriteTokens`
   * derives it from consecutive requests.
   */
  newTokens: number;
  /**
   * Tokens of the prefix already held by a live 1-hour entry that a pause would not expire and
   * the next request could still reach (an earlier request's 1-hour write) [0]. A pause after
   * this request then costs only the re-write of the rest, so a large new segment (a tool
   * result) is written at 5 minutes and covered by the next small 1-hour write instead:
   * Anthropic bills a 1-hour entry only for the segment past the entry it read, yet the entry
   * holds the whole prefix.
   */
  protectedTokens?: number;
  /**
   * Requests expected after this one [unknown: at least one]. With none left, no pause can be
   * bridged and the 1-hour premium buys nothing.
   */
  expectedRemainingRequests?: number;
  /**
   * Price multipliers on the model's input rate (`cacheMultipliersFor(provider, model)`: they differ
   * by model, Fable 5.1 reads at 0.025×); Anthropic's standard ones by default.
   */
  pricing?: { write5m: number; write1h: number; read: number };
}

export interface TtlChoice {
  ttl: AnthropicTtl;
  reason: string;
  /** Share of past gaps that outlived 5 minutes but not an hour. */
  pauseShare: number;
}

/**
 * Choose the history breakpoint's TTL from the session's own rhythm. A 1-hour entry costs
 * `write1h - write5m` more per written token (0.75× the input rate on Anthropic) and saves,
 * whenever a gap falls between 5 minutes and an hour, re-writing the part of the prefix no earlier
 * 1-hour entry holds instead of reading it (`write5m - read` = 1.15×). 1 hour pays when
 * `risk × loss > 0.75 × new`, where:
 * - `risk = 1 − (1 − p_kind)(1 − p)` is the chance that a pause falls in the two gaps the new
 *   segment stays exposed for (`RISK_HORIZON_GAPS`): `p` the share of past gaps in that window,
 *   `p_kind` the same share among the gaps that followed requests of this one's kind
 *   (`kindGapsMs`), since the gap right after a turn start is usually a tool's and the one after a
 *   tool step often the user's;
 * - `loss = 1.15 × (prefix − protected)`, or with `keepWarm` no more than the pings a keep-warm
 *   planner would send instead (a read of the whole prefix per lifetime the average pause outlasts);
 *   in the second gap, with `expectedGrowthTokens`, only what the 1-hour write takes off the loss
 *   once the next request has added its own segment.
 *
 * A session that has never paused stays at 5 minutes; one that pauses now and then switches as
 * soon as the prefix makes it worth it. Online, the first pause always finds a 5-minute entry
 * expired (one full re-write); gaps from earlier sessions (`priorGapsMs`) remove that cost when the
 * deployment's users do pause.
 *
 * @example
 * chooseHistoryTtl({ gapsMs: [30_000, 420_000, 40_000], prefixTokens: 20_000, newTokens: 600 }).ttl; // '1h'
 */
export function chooseHistoryTtl(input: TtlPolicyInput): TtlChoice {
  const pricing = input.pricing ?? ANTHROPIC_CACHE_PRICING;
  const prior = input.priorGapsMs === undefined ? null : tallyOf(input.priorGapsMs);
  const gaps = prior ? joinTallies(prior, tallyOf(input.gapsMs)) : tallyOf(input.gapsMs);
  const pauses = gaps.pauses;
  const pauseShare = gaps.count === 0 ? 0 : pauses / gaps.count;
  if (input.expectedRemainingRequests !== undefined && input.expectedRemainingRequests <= 0) {
    return { ttl: '5m', pauseShare, reason: 'no request is expected after this one' };
  }
  const atRisk = Math.max(0, input.prefixTokens - (input.protectedTokens ?? 0));
  // A segment written at 5 minutes stays at risk until a later 1-hour write covers it: a pause
  // in the gap right after this request (priced on this kind's gaps) or in the next one.
  const nextShare = input.kindGapsMs ? shrunkPauseShare(tallyOf(input.kindGapsMs), pauseShare) : pauseShare;
  const pauseRisk = 1 - (1 - nextShare) * (1 - pauseShare) ** (RISK_HORIZON_GAPS - 1);
  const rewrite = (pricing.write5m - pricing.read) * atRisk;
  const pingsAt = (prefix: number) =>
    input.keepWarm
      ? pingsThroughPause(gaps) * (pricing.read * prefix + KEEP_WARM_DEFAULTS.pingOverheadTokens)
      : Number.POSITIVE_INFINITY;
  const pings = pingsAt(input.prefixTokens);
  const growth = input.expectedGrowthTokens;
  let laterLoss = Math.min(rewrite, pings);
  if (growth !== undefined) {
    const later = pingsAt(input.prefixTokens + growth);
    const lossOf = (tokens: number) => Math.min((pricing.write5m - pricing.read) * tokens, later);
    laterLoss = lossOf(atRisk + growth) - lossOf(growth);
  }
  const laterShare = 1 - (1 - pauseShare) ** (RISK_HORIZON_GAPS - 1);
  const expectedSaving = nextShare * Math.min(rewrite, pings) + (1 - nextShare) * laterShare * laterLoss;
  const extraWriteCost = (pricing.write1h - pricing.write5m) * input.newTokens;
  const kindNote = input.kindGapsMs ? `, ${Math.round(nextShare * 100)}% after requests of this kind` : '';
  if (pauseRisk > 0 && expectedSaving > extraWriteCost) {
    return {
      ttl: '1h',
      pauseShare,
      reason: `${pauses} of ${gaps.count} gaps${prior?.count ? ` (${prior.count} from earlier sessions)` : ''} lasted 5–60 min${kindNote}: keeping ${atRisk} tokens an hour is expected to save more than the 1-hour write premium on ${input.newTokens} new tokens`,
    };
  }
  return {
    ttl: '5m',
    pauseShare,
    reason:
      pauseRisk === 0
        ? 'no gap between 5 and 60 minutes so far'
        : `the 1-hour write premium on ${input.newTokens} new tokens outweighs the expected ${pings < rewrite ? 'pings through a pause' : `re-write of ${atRisk} tokens`}${kindNote}`,
  };
}

/** Pseudo-gaps at the overall pause share that a kind's own share is shrunk towards while its gaps are few. */
const KIND_PRIOR_WEIGHT = 2;

/** Pings that keep a 5-minute entry alive through the average pause among `gaps` (one per lifetime it outlasts). */
function pingsThroughPause(gaps: GapTally): number {
  return gaps.pauses === 0 ? 0 : gaps.pingsThroughPauses / gaps.pauses;
}

/** Share of `gaps` that were pauses, shrunk towards `overall` by `KIND_PRIOR_WEIGHT` pseudo-gaps. */
function shrunkPauseShare(gaps: GapTally, overall: number): number {
  return (gaps.pauses + KIND_PRIOR_WEIGHT * overall) / (gaps.count + KIND_PRIOR_WEIGHT);
}

/** What the TTL policy needs to know about the previous request to price this one's write. */
export interface PreviousPrefix {
  at: number;
  model: string;
  /** Prefix hash of the previous request's last persisted block, and of its static zones' end. */
  lastPrefixHash: string;
  staticPrefixHash: string;
  prefixTokens: number;
  /** How long the previous request's history entry lives. */
  lifetimeMs: number;
}

export interface WriteEstimateInput {
  at: number;
  model: string;
  /** Prefix hashes of this request's persisted blocks, in order. */
  prefixHashes: readonly string[];
  staticPrefixHash: string;
  prefixTokens: number;
  /** Tokens of the history zone (what a history rewrite re-writes). */
  historyTokens: number;
}

/**
 * Tokens this request will write, judged against the previous request: only the growth when
 * the previous prefix is still a live prefix of this one; the history zone when the static
 * zones are unchanged but history was rewritten (compaction); the whole prefix after a tool or
 * model change or once the previous entry has expired — except the part an earlier 1-hour
 * entry (`longEntry`) still holds, when it is alive and a prefix of this request: after a
 * pause the request re-writes only what the short entries held, so the 1-hour premium is
 * priced on that, not on the whole prefix.
 *
 * @example
 * estimateWriteTokens(current, null); // the whole prefix: nothing was cached
 */
export function estimateWriteTokens(
  current: WriteEstimateInput,
  previous: PreviousPrefix | null,
  longEntry: LongEntry | null = null,
): number {
  if (!previous || previous.model !== current.model || current.at - previous.at > previous.lifetimeMs) {
    return current.prefixTokens - liveLongTokens(current, longEntry);
  }
  // Searched from the end: a live previous prefix ends near this one's end (same answer as includes).
  if (current.prefixHashes.lastIndexOf(previous.lastPrefixHash) !== -1) {
    return Math.max(0, current.prefixTokens - previous.prefixTokens);
  }
  if (current.staticPrefixHash === previous.staticPrefixHash) return current.historyTokens;
  return current.prefixTokens;
}

export const TTL_LIFETIME_MS: Record<AnthropicTtl, number> = {
  '5m': CACHE_LIFETIMES_MS.anthropic5m,
  '1h': CACHE_LIFETIMES_MS.anthropic1h,
};

/** A 1-hour entry an earlier request of the session wrote: where its prefix ended and when. */
export interface LongEntry {
  at: number;
  model: string;
  /** Prefix hash of the last block the entry covers. */
  prefixHash: string;
  prefixTokens: number;
}

/** Block positions a read searches back from a breakpoint (Anthropic and Claude on Bedrock). */
const LOOKBACK_BLOCKS = 20;

/** Tokens of a 1-hour entry this request reads: alive, same model, a prefix within the lookback window; else 0. */
function liveLongTokens(current: WriteEstimateInput, entry: LongEntry | null): number {
  if (!entry || entry.model !== current.model || current.at - entry.at >= ONE_HOUR) return 0;
  const index = current.prefixHashes.lastIndexOf(entry.prefixHash);
  if (index < 0 || current.prefixHashes.length - 1 - index >= LOOKBACK_BLOCKS) return 0;
  return Math.min(entry.prefixTokens, current.prefixTokens);
}

/**
 * Tokens of this request's prefix that an earlier 1-hour entry still protects against a pause
 * (`TtlPolicyInput.protectedTokens`): the entry's prefix when it is a prefix of this request on
 * the same model, within the lookback window of the history breakpoint, and young enough to
 * outlive a pause of half an hour; else 0.
 *
 * @example
 * protectedTokens(current, { at: 0, model, prefixHash: hashes[3], prefixTokens: 9_000 }); // 9000
 */
export function protectedTokens(current: WriteEstimateInput, entry: LongEntry | null): number {
  if (!entry || entry.model !== current.model || current.at - entry.at > ONE_HOUR / 2) return 0;
  const index = current.prefixHashes.lastIndexOf(entry.prefixHash);
  if (index < 0 || current.prefixHashes.length - 1 - index >= LOOKBACK_BLOCKS) return 0;
  return entry.prefixTokens;
}
