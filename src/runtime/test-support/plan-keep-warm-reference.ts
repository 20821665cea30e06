/**
 * The keep-warm planner as it was before it walked sorted gaps (commit 0f9cdfa): every gap priced
 * one by one against every schedule. Kept only as the reference the property test compares the
 * piecewise evaluation with; the validation and the reasons are the real module's.
 */
import { CACHE_LIFETIMES_MS } from '../../cache/wire/cache-rules.js';
import type { KeepWarmAction, KeepWarmInput, KeepWarmPlan } from '../plan-keep-warm.js';

const ONE_HOUR = 60 * 60_000;

/** `planKeepWarm` by the old per-gap evaluation (array gaps only, no validation, empty reasons). */
export function referencePlanKeepWarm(input: KeepWarmInput): KeepWarmPlan {
  const gapsMs = input.gapsMs as readonly number[];
  const ttl = input.ttlMs ?? CACHE_LIFETIMES_MS.anthropic5m;
  const margin = Math.min(input.marginMs ?? 20_000, ttl / 2);
  const idle = input.idleMs ?? 0;
  const gaps = gapsMs.filter((gap) => gap > idle);
  if (gaps.length === 0) {
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
  const average = (cost: (gap: number) => number) => gaps.reduce((total, gap) => total + cost(gap), 0) / gaps.length;
  const priced = (times: number[]) => average((gap) => idlePeriod.cost(times, gap));
  const letExpire = priced([]);
  let best = { keeps: null as KeepWarmPlan['keeps'], times: [] as number[], cost: letExpire };
  const consider = (keeps: NonNullable<KeepWarmPlan['keeps']>, times: number[]) => {
    const cost = priced(times);
    if (cost < best.cost - 1e-9) best = { keeps, times, cost };
  };
  const maxPings = input.maxPings ?? 12;
  // Pings at interval, 2·interval, …: each is sent only while the user is still away.
  for (let pings = 1; pings <= maxPings; pings++) {
    consider(
      'prefix',
      Array.from({ length: pings }, (_, index) => (index + 1) * (ttl - margin)),
    );
  }
  // Or only the longer-lived entry, each ping just before it expires (it outlives the short one).
  const keptFor = input.protectedForMs ?? 0;
  const longTtl = input.protectedTtlMs ?? ONE_HOUR;
  if (idlePeriod.kept > 0 && keptFor - margin > ttl && longTtl > ttl) {
    for (let pings = 1; pings <= maxPings; pings++) {
      consider(
        'long-entry',
        Array.from({ length: pings }, (_, index) => keptFor - margin + index * (longTtl - margin)),
      );
    }
  }
  const { read, write5m, write1h } = input.pricing;
  const oneHour =
    (write1h - write5m) * input.prefixTokens +
    average((gap) => (gap <= ONE_HOUR ? read * input.prefixTokens : idlePeriod.cost([], gap)));
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
    gapsPriced: gaps.length,
    reason: '',
  };
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
    this.overhead = input.pingOverheadTokens ?? 8;
  }

  cost(times: readonly number[], gap: number): number {
    let shortUntil = this.ttl;
    let longUntil = this.keptFor;
    let cost = 0;
    for (const at of times) {
      if (at >= gap) break;
      cost += this.overhead + this.refill(at, shortUntil, longUntil);
      // A read refreshes the entry it hits; a ping past the short entry's life re-writes it.
      if (at >= shortUntil && at < longUntil) longUntil = at + this.longTtl;
      shortUntil = at + this.ttl;
    }
    return cost + this.refill(gap, shortUntil, longUntil);
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
