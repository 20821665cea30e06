import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import { ValidationError } from '../model/errors.js';
import type { CacheMultipliers } from '../providers/shared/price-row.js';
import { type GapCounts, gapCountsOf, isGapCounts } from './sorted-gaps.js';

const ONE_HOUR = 60 * 60_000;

/**
 * The planner's defaults, shared with every place that prices a ping the same way (the TTL
 * policy, `startKeepWarm`, the proxy's keep-warm stage): its uncached tokens after the prefix
 * (a short user message), how long before expiry it is sent, and how many per idle period.
 */
export const KEEP_WARM_DEFAULTS = { pingOverheadTokens: 8, marginMs: 20_000, maxPings: 12 } as const;

export interface KeepWarmInput {
  /** Tokens the cache entry holds (the session's cached prefix): what a re-write costs. */
  prefixTokens: number;
  /**
   * Idle periods seen so far — the session's gaps between requests and earlier sessions' (the
   * TTL policy's `gapsMs` and `priorGapsMs`), in ms. They are the distribution the plan prices.
   * A caller that plans after every request keeps them in a `SortedGaps` (`joinGaps` for earlier
   * sessions' and this one's), so a plan costs O(log gaps) instead of a pass over every gap.
   */
  gapsMs: readonly number[] | GapCounts;
  /**
   * How long the session has been idle already, in ms [0]: only longer gaps remain possible, and
   * no ping was sent before now (the schedule starts no earlier than `idleMs`).
   */
  idleMs?: number;
  /** Lifetime of the entry, refreshed by every read (a ping is a read) [Anthropic's 5 minutes]. */
  ttlMs?: number;
  /** Price multipliers on the input rate (the model's price row: `cacheMultipliersOf`). */
  pricing: CacheMultipliers;
  /** The model's input rate, USD per million tokens, to state the saving in USD [unpriced]. */
  inputPerMTok?: number;
  /** Uncached input tokens each ping adds after the prefix (its own short user message) [8]. */
  pingOverheadTokens?: number;
  /** Pings before expiry, at most [12: an hour of 5-minute entries]. */
  maxPings?: number;
  /** How long before expiry a ping is sent, ms [20 s: the request must land before the entry expires]. */
  marginMs?: number;
  /**
   * Tokens at the start of the prefix that a longer-lived entry (a 1-hour write) keeps anyway,
   * and for how long from now, ms: after the short entry expires the return re-writes only the
   * rest, so pings (which read the whole prefix) buy less [none].
   */
  protectedTokens?: number;
  protectedForMs?: number;
  /** Lifetime of that longer-lived entry once a ping refreshes it, ms [1 hour]. */
  protectedTtlMs?: number;
}

/**
 * `let-expire`: send nothing, re-write on return if the gap outlives the entry. `ping`: send up to
 * `pings` pre-warm requests (`scheduleMs`, each refreshing the entry). `write-1h`: cheaper still
 * to write the prefix with the 1-hour TTL at the next request (the TTL policy's choice).
 */
export type KeepWarmAction = 'let-expire' | 'ping' | 'write-1h';

export interface KeepWarmPlan {
  action: KeepWarmAction;
  /** Pings to send at most (0 unless `ping`). */
  pings: number;
  /**
   * What the pings keep (null unless `ping`): `prefix`, the whole prefix, each ping before the
   * short entry expires; `long-entry`, only the longer-lived entry's part (`protectedTokens`),
   * each ping just before that entry expires — the rest is re-written on return, but an hour of
   * pause costs one ping instead of twelve.
   */
  keeps: 'prefix' | 'long-entry' | null;
  /**
   * When to send them, ms after the last request (each one `ttl − margin` after the one before;
   * the first no earlier than `idleMs`).
   */
  scheduleMs: number[];
  /** Expected cost of the prefix until the next request, in input-token equivalents, per action. */
  expectedCost: { letExpire: number; ping: number; write1h: number };
  /** `letExpire − chosen`, input-token equivalents (≥ 0), and in USD when `inputPerMTok` is known. */
  expectedSaving: number;
  expectedSavingUsd: number | null;
  /** Idle periods the plan priced (gaps longer than `idleMs`). */
  gapsPriced: number;
  reason: string;
}

/**
 * Decide, for one idle period, between letting the cache expire, pinging it before expiry, and a
 * 1-hour write — priced on the gaps the session has shown. A ping reads the whole prefix (at the
 * read rate, plus its own few uncached tokens) and refreshes the entry; letting it expire costs a
 * full re-write when the user returns later than the TTL. Holding a 5-minute entry for an hour
 * takes 12 pings, so pings pay only when returns within a few lifetimes are likely. Where a
 * 1-hour entry holds most of the prefix (`protectedTokens`), one ping just before it expires
 * keeps that part for another hour and is priced beside the short pings (`keeps`). With no
 * gaps learned there is nothing to price: the plan lets it expire.
 *
 * @example
 * planKeepWarm({ prefixTokens: 200_000, gapsMs: [30_000, 9 * 60_000, 12 * 60_000], pricing }).action; // 'ping'
 */
export function planKeepWarm(input: KeepWarmInput): KeepWarmPlan {
  return planKeepWarmAveraging(input, averageOver);
}

/** How a plan averages a per-gap cost over the `count` gaps longer than `idle`. */
export type GapAverage = (gaps: GapCounts, idle: number, count: number, cost: (gap: number) => GapCost) => number;

/**
 * `planKeepWarm` with the averaging given: the seam its property test uses to compare the
 * piecewise walk (`averageOver`) with a sum over every gap. Not part of the runtime's exports.
 */
export function planKeepWarmAveraging(input: KeepWarmInput, averageGaps: GapAverage): KeepWarmPlan {
  validate(input);
  const ttl = input.ttlMs ?? CACHE_LIFETIMES_MS.anthropic5m;
  const margin = Math.min(input.marginMs ?? KEEP_WARM_DEFAULTS.marginMs, ttl / 2);
  const idle = input.idleMs ?? 0;
  const gaps = gapCountsOf(input.gapsMs);
  const pricedGaps = gaps.size - gaps.countAtMost(idle);
  if (pricedGaps === 0) {
    return {
      action: 'let-expire',
      pings: 0,
      keeps: null,
      scheduleMs: [],
      expectedCost: { letExpire: 0, ping: 0, write1h: 0 },
      expectedSaving: 0,
      expectedSavingUsd: input.inputPerMTok === undefined ? null : 0,
      gapsPriced: 0,
      reason: idle > 0 ? `no gap seen so far lasted longer than ${idle} ms` : 'no gaps learned yet: nothing to price',
    };
  }
  const idlePeriod = new IdlePeriod(input, ttl);
  const average = (cost: (gap: number) => GapCost) => averageGaps(gaps, idle, pricedGaps, cost);
  const priced = (times: number[]) => average((gap) => idlePeriod.cost(times, gap));
  const letExpire = priced([]);
  let best = { keeps: null as KeepWarmPlan['keeps'], times: [] as number[], cost: letExpire };
  const consider = (keeps: NonNullable<KeepWarmPlan['keeps']>, times: number[]) => {
    const cost = priced(times);
    if (cost < best.cost - 1e-9) best = { keeps, times, cost };
  };
  const maxPings = input.maxPings ?? KEEP_WARM_DEFAULTS.maxPings;
  // Pings at interval, 2·interval, …: each is sent only while the user is still away.
  for (let pings = 1; pings <= maxPings; pings++) consider('prefix', scheduleFrom(ttl - margin, ttl - margin, pings, idle));
  // Or only the longer-lived entry, each ping just before it expires (it outlives the short one).
  const keptFor = input.protectedForMs ?? 0;
  const longTtl = input.protectedTtlMs ?? ONE_HOUR;
  if (idlePeriod.kept > 0 && keptFor - margin > ttl && longTtl > ttl) {
    for (let pings = 1; pings <= maxPings; pings++) {
      consider('long-entry', scheduleFrom(keptFor - margin, longTtl - margin, pings, idle));
    }
  }
  const { read, write5m, write1h } = input.pricing;
  const oneHour =
    (write1h - write5m) * input.prefixTokens +
    average((gap) => (gap <= ONE_HOUR ? { cost: read * input.prefixTokens, until: ONE_HOUR } : idlePeriod.cost([], gap)));
  const action: KeepWarmAction =
    oneHour < best.cost - 1e-9 && oneHour < letExpire ? 'write-1h' : best.times.length > 0 ? 'ping' : 'let-expire';
  const chosen = action === 'write-1h' ? oneHour : best.cost;
  const saving = letExpire - chosen;
  const scheduleMs = action === 'ping' ? best.times : [];
  return {
    action,
    pings: scheduleMs.length,
    keeps: action === 'ping' ? best.keeps : null,
    scheduleMs,
    expectedCost: { letExpire, ping: best.cost, write1h: oneHour },
    expectedSaving: saving,
    expectedSavingUsd: input.inputPerMTok === undefined ? null : (saving * input.inputPerMTok) / 1e6,
    gapsPriced: pricedGaps,
    reason: reasonFor(action, scheduleMs.length, best.keeps, pricedGaps, saving),
  };
}

/**
 * `count` pings, the first at `first` and then every `step` ms after the last request, as they
 * can still be sent `idle` ms into the pause: none was sent before now, so the first goes out no
 * earlier than now and the rest keep their spacing from it. (Priced at their planned times, pings
 * already due would count as reads that kept an entry which in fact expired unpinged, and a caller
 * would send them all at once, each a re-write.)
 */
function scheduleFrom(first: number, step: number, count: number, idle: number): number[] {
  const start = Math.max(first, idle);
  return Array.from({ length: count }, (_, index) => start + index * step);
}

/** A gap's cost, and the longest gap (≥ it) that costs the same: the cost is constant on the piece between thresholds. */
export interface GapCost {
  cost: number;
  until: number;
}

/**
 * The mean cost over the gaps longer than `idle`, one piece at a time: price the shortest gap
 * left, count every gap up to the end of its piece (`until`), jump to the first gap past it. A
 * schedule of k pings has at most 2k + 3 pieces, so this is O(k log gaps), however many gaps.
 */
function averageOver(gaps: GapCounts, idle: number, count: number, cost: (gap: number) => GapCost): number {
  let total = 0;
  let counted = gaps.countAtMost(idle);
  let gap = gaps.firstAbove(idle);
  while (gap !== undefined) {
    const piece = cost(gap);
    const upTo = gaps.countAtMost(piece.until);
    total += (upTo - counted) * piece.cost;
    counted = upTo;
    gap = piece.until === Number.POSITIVE_INFINITY ? undefined : gaps.firstAbove(piece.until);
  }
  return total / count;
}

/**
 * One idle period's cost, in input-token equivalents, for a ping schedule and a gap: each ping
 * sent before the user returns reads what is alive (the whole prefix while the short entry
 * lives; else the longer-lived entry's part, re-writing the rest at the short TTL) and refreshes
 * it; the return reads what is still alive and re-writes the rest.
 */
class IdlePeriod {
  readonly kept: number;
  private readonly keptFor: number;
  private readonly longTtl: number;
  private readonly overhead: number;

  constructor(
    private readonly input: KeepWarmInput,
    private readonly ttl: number,
  ) {
    this.kept = Math.min(input.prefixTokens, input.protectedTokens ?? 0);
    this.keptFor = this.kept > 0 ? (input.protectedForMs ?? 0) : 0;
    this.longTtl = input.protectedTtlMs ?? ONE_HOUR;
    this.overhead = input.pingOverheadTokens ?? KEEP_WARM_DEFAULTS.pingOverheadTokens;
  }

  cost(times: readonly number[], gap: number): GapCost {
    let shortUntil = this.ttl;
    let longUntil = this.keptFor;
    let cost = 0;
    // Every threshold this gap fell at or below bounds the gaps that cost the same.
    let until = Number.POSITIVE_INFINITY;
    for (const at of times) {
      if (at >= gap) {
        until = at;
        break;
      }
      cost += this.overhead + this.refill(at, shortUntil, longUntil);
      // A read refreshes the entry it hits; a ping past the short entry's life re-writes it.
      if (at >= shortUntil && at < longUntil) longUntil = at + this.longTtl;
      shortUntil = at + this.ttl;
    }
    if (gap <= shortUntil) until = Math.min(until, shortUntil);
    else if (gap <= longUntil) until = Math.min(until, longUntil);
    return { cost: cost + this.refill(gap, shortUntil, longUntil), until };
  }

  /** What a request at `at` pays for the prefix: read while the short entry lives, else the kept part read and the rest written. */
  private refill(at: number, shortUntil: number, longUntil: number): number {
    const { read, write5m } = this.input.pricing;
    const prefix = this.input.prefixTokens;
    if (at <= shortUntil) return read * prefix;
    if (at <= longUntil) return read * this.kept + write5m * (prefix - this.kept);
    return write5m * prefix;
  }
}

function reasonFor(action: KeepWarmAction, pings: number, keeps: KeepWarmPlan['keeps'], gaps: number, saving: number): string {
  const tokens = Math.round(saving);
  switch (action) {
    case 'ping':
      return `over ${gaps} idle periods, up to ${pings} ping${pings === 1 ? '' : 's'}${keeps === 'long-entry' ? ' of the 1-hour entry' : ''} cost less than re-writing the prefix (expected saving ${tokens} input-token equivalents)`;
    case 'write-1h':
      return `over ${gaps} idle periods, a 1-hour write costs less than pings or a re-write (expected saving ${tokens} input-token equivalents)`;
    case 'let-expire':
      return `over ${gaps} idle periods, no ping schedule costs less than letting the entry expire`;
  }
}

function validate(input: KeepWarmInput): void {
  const nonNegative = (value: number | undefined, path: string) => {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ValidationError(path, 'a finite number ≥ 0', String(value));
    }
  };
  nonNegative(input.prefixTokens, 'prefixTokens');
  nonNegative(input.idleMs, 'idleMs');
  nonNegative(input.pingOverheadTokens, 'pingOverheadTokens');
  nonNegative(input.marginMs, 'marginMs');
  nonNegative(input.protectedTokens, 'protectedTokens');
  nonNegative(input.protectedForMs, 'protectedForMs');
  if (input.protectedTtlMs !== undefined && !(Number.isFinite(input.protectedTtlMs) && input.protectedTtlMs > 0)) {
    throw new ValidationError('protectedTtlMs', 'a finite number > 0', String(input.protectedTtlMs));
  }
  nonNegative(input.inputPerMTok, 'inputPerMTok');
  if (input.ttlMs !== undefined && !(Number.isFinite(input.ttlMs) && input.ttlMs > 0)) {
    throw new ValidationError('ttlMs', 'a finite number > 0', String(input.ttlMs));
  }
  if (input.maxPings !== undefined && !(Number.isInteger(input.maxPings) && input.maxPings >= 0)) {
    throw new ValidationError('maxPings', 'a whole number ≥ 0', String(input.maxPings));
  }
  // Gaps given as counts were checked as they were added.
  if (!isGapCounts(input.gapsMs)) {
    input.gapsMs.forEach((gap, index) => {
      nonNegative(gap, `gapsMs[${index}]`);
    });
  }
  for (const key of ['read', 'write5m', 'write1h'] as const) nonNegative(input.pricing[key], `pricing.${key}`);
}
