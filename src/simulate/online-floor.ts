import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import { KEEP_WARM_DEFAULTS } from '../runtime/plan-keep-warm.js';

/** What the last message of a main-thread request is: the user's, a tool's results, or subagents' results. */
export type RequestClass = 'turn-start' | 'tool-step' | 'subagent-results';
/** What the reply to a request does: ends the turn, calls tools, or dispatches subagents. */
export type ReplyKind = 'turn-end' | 'tool-call' | 'dispatch';

/** One main-thread request of a workload, as the online floor sees it. */
export interface ChainRequest {
  /** When it is sent, ms on the workload's clock. */
  at: number;
  /** Tokens of its persisted prefix (global, session and history zones): what its history entry holds. */
  prefixTokens: number;
  requestClass: RequestClass;
  replyKind: ReplyKind;
  /**
   * From the session's last activity after this request (it, or the subagent calls it dispatched)
   * to the next main-thread request, ms; null on the last request.
   */
  gapAfterMs: number | null;
}

/**
 * What the floor's decisions may know at send time, beyond the past:
 * - `class`: the TTL knows the request's class; the pings, decided once the reply has arrived,
 *   also know the reply's kind (a harness does: the turn ended, or subagents were dispatched).
 * - `class-and-reply`: the TTL also knows the reply's kind (not knowable at send time: a more
 *   informed yardstick).
 * - `realized-gap`: every decision knows the gap that follows (the hindsight oracle's knowledge
 *   of gaps, kept as a check of the model against the oracle).
 */
export type FloorKnowledge = 'class' | 'class-and-reply' | 'realized-gap';

/** Price multipliers on the input rate (`cacheMultipliersFor`). */
export interface FloorPricing {
  write5m: number;
  write1h: number;
  read: number;
}

export interface OnlineFloorInput {
  chain: readonly ChainRequest[];
  knowledge: FloorKnowledge;
  pricing: FloorPricing;
  /** Whether the model takes pre-warm pings (`prewarmingUnsupportedReason` is null). */
  pings: boolean;
  /**
   * The gaps (ms) that follow requests of a class answered by a reply kind: the distribution the
   * floor prices its decisions over [the chain's own gaps, `gapAfterMs`, grouped so].
   */
  gapsMs?: (requestClass: RequestClass, replyKind: ReplyKind) => readonly number[];
}

type Ttl = '5m' | '1h';
const REPLY_KINDS: readonly ReplyKind[] = ['turn-end', 'tool-call', 'dispatch'];
const TTLS: readonly Ttl[] = ['5m', '1h'];
const LIFETIME: Record<Ttl, number> = { '5m': CACHE_LIFETIMES_MS.anthropic5m, '1h': CACHE_LIFETIMES_MS.anthropic1h };
const ONE_HOUR = CACHE_LIFETIMES_MS.anthropic1h;

/** A gap distribution the floor prices a decision over, with its weight and each decision's shares. */
interface Outcomes {
  weight: number;
  /** Shares by TTL (`TTLS` order) and ping count. */
  shares: readonly (readonly OutcomeShares[])[];
}

/** How one (TTL, pings) decision fares over a gap distribution. */
interface OutcomeShares {
  /** The entry this request wrote is still alive at the next request. */
  alive: number;
  /** It expired, but an earlier 1-hour entry can still be read (the gap is at most an hour). */
  expired: number;
  /** Every entry expired (the gap outlasted an hour). */
  cold: number;
  /** Pings sent, on average. */
  pings: number;
  /**
   * Pings that would keep an earlier 1-hour entry alive through the gaps longer than an hour, on
   * average over all gaps (one just before each expiry, counted from the gap's start).
   */
  coldPings: number;
}

/** Interval between keep-warm pings on an entry of this TTL (just before each expiry). */
export function pingIntervalMs(ttl: Ttl): number {
  return LIFETIME[ttl] - KEEP_WARM_DEFAULTS.marginMs;
}

function sharesOf(gapsMs: readonly number[], ttl: Ttl, pings: number): OutcomeShares {
  const interval = pingIntervalMs(ttl);
  const shares = { alive: 0, expired: 0, cold: 0, pings: 0, coldPings: 0 };
  for (const gap of gapsMs) {
    shares.pings += Math.min(pings, Math.max(0, Math.ceil(gap / interval) - 1));
    if (gap <= LIFETIME[ttl] + pings * interval) shares.alive += 1;
    else if (gap <= ONE_HOUR) shares.expired += 1;
    else {
      shares.cold += 1;
      shares.coldPings += Math.ceil((gap - ONE_HOUR) / pingIntervalMs('1h'));
    }
  }
  const count = Math.max(1, gapsMs.length);
  const share = (value: number) => value / count;
  return {
    alive: share(shares.alive),
    expired: share(shares.expired),
    cold: share(shares.cold),
    pings: share(shares.pings),
    coldPings: share(shares.coldPings),
  };
}

/**
 * The online floor: the policy with the least expected cost, over the workload's gaps, among all
 * policies that choose each request's history TTL when it is sent, and the keep-warm pings once
 * its reply has arrived, knowing the past, every request's prefix size, class and what `knowledge`
 * grants — but not the gap that follows (each gap drawn, independently, from the gaps that followed
 * the workload's requests of the same class). Solved exactly by backward induction over the state
 * an online policy can observe before each request: the newest 1-hour entry still alive, and
 * whether the previous request's entry outlived the gap.
 *
 * In token-equivalents of the input rate: a request reads the longest live entry and writes the
 * rest of its prefix at its TTL (the last request writes nothing: its new segment goes uncached,
 * as Cachet's `finalRequest` does); a ping reads the whole prefix. Relaxations (each makes the
 * model kinder to 1-hour entries than the simulator is, and the simulator's cost of the policy is
 * what the bench reports): a 1-hour entry is assumed readable for up to an hour after every gap
 * (the provider expires it an hour after its last read, and reads it only within 20 blocks).
 */
export class OnlineFloor {
  private readonly values: Float64Array[];
  private readonly outcomes: Map<number, Outcomes[]>;
  private readonly afterReply: Map<number, Outcomes>;

  constructor(private readonly input: OnlineFloorInput) {
    const distributions = new Distributions(input.chain, input.pings, input.gapsMs);
    this.outcomes = outcomesByRequest(input.chain, input.knowledge, distributions);
    this.afterReply = new Map(
      input.chain.map((request, index) => [
        index,
        input.knowledge === 'realized-gap'
          ? distributions.realized(index)
          : distributions.of(request.requestClass, request.replyKind),
      ]),
    );
    const count = input.chain.length;
    this.values = Array.from({ length: count + 1 }, () => new Float64Array((count + 1) * 2));
    for (let index = count - 1; index >= 0; index--) {
      const value = this.values[index] as Float64Array;
      for (let longest = -1; longest < index; longest++) {
        for (const expired of [false, true]) {
          value[slot(longest, expired)] = Math.min(...TTLS.map((ttl) => this.costFrom(index, longest, expired, ttl)));
        }
      }
    }
  }

  /** Expected cost, in input-token equivalents, of the whole chain under the floor's policy. */
  get expectedTokens(): number {
    return (this.values[0] as Float64Array)[slot(-1, true)] as number;
  }

  /** The TTL the floor writes request `index` with, given the newest live 1-hour entry and whether the last entry expired. */
  ttlFor(index: number, longest: number, expired: boolean): Ttl {
    if (index >= this.input.chain.length - 1) return '5m';
    const [short, long] = TTLS.map((ttl) => this.costFrom(index, longest, expired, ttl)) as [number, number];
    return long < short ? '1h' : '5m';
  }

  /**
   * Pings the floor sends after request `index` (written at `ttl`), knowing its reply's kind: on
   * its entry, and whether to ping the newest 1-hour entry through a gap longer than an hour.
   */
  pingsAfter(index: number, longest: number, ttl: Ttl): { pings: number; keepLong: boolean } {
    const request = this.input.chain[index] as ChainRequest;
    if (request.gapAfterMs === null || !this.input.pings) return { pings: 0, keepLong: false };
    const outcome = this.afterReply.get(index) as Outcomes;
    const { pings, keepLong } = this.bestPings(index, ttl === '1h' ? index : longest, ttl, outcome);
    return { pings, keepLong };
  }

  /** Expected cost from request `index` on, writing it at `ttl`. */
  private costFrom(index: number, longest: number, expired: boolean, ttl: Ttl): number {
    const { chain, pricing } = this.input;
    const request = chain[index] as ChainRequest;
    const previous = index > 0 ? (chain[index - 1] as ChainRequest).prefixTokens : 0;
    const held = expired ? (longest >= 0 ? (chain[longest] as ChainRequest).prefixTokens : 0) : previous;
    const read = Math.min(held, request.prefixTokens);
    const written = request.prefixTokens - read;
    if (request.gapAfterMs === null) return pricing.read * read + written;
    const own = pricing.read * read + (ttl === '1h' ? pricing.write1h : pricing.write5m) * written;
    const kept = ttl === '1h' ? index : longest;
    let later = 0;
    for (const outcome of this.outcomes.get(index) ?? []) {
      later += outcome.weight * this.bestPings(index, kept, ttl, outcome).cost;
    }
    return own + later;
  }

  /**
   * The ping count with the least expected cost over the outcome's gaps, and that cost (pings and
   * what follows); `keepLong`: whether to ping the newest 1-hour entry through a gap that
   * outlasts an hour (decided once the session has been idle that long).
   */
  private bestPings(
    index: number,
    kept: number,
    ttl: Ttl,
    outcome: Outcomes,
  ): { pings: number; keepLong: boolean; cost: number } {
    const next = this.values[index + 1] as Float64Array;
    const { chain, pricing } = this.input;
    const prefix = (chain[index] as ChainRequest).prefixTokens;
    const pingCost = pricing.read * prefix + KEEP_WARM_DEFAULTS.pingOverheadTokens;
    // A ping through a long gap reads the 1-hour entry and writes the rest of the prefix again.
    const held = kept >= 0 ? (chain[kept] as ChainRequest).prefixTokens : 0;
    const longPingCost = pricing.read * held + pricing.write5m * (prefix - held) + KEEP_WARM_DEFAULTS.pingOverheadTokens;
    let best = { pings: 0, keepLong: false, cost: Number.POSITIVE_INFINITY };
    for (const [pings, shares] of (outcome.shares[TTLS.indexOf(ttl)] as readonly OutcomeShares[]).entries()) {
      const letGo = shares.cold * (next[slot(-1, true)] as number);
      const keepLong =
        kept >= 0 && this.input.pings
          ? shares.coldPings * longPingCost + shares.cold * (next[slot(kept, true)] as number)
          : Number.POSITIVE_INFINITY;
      const cost =
        shares.pings * pingCost +
        shares.alive * (next[slot(kept, false)] as number) +
        shares.expired * (next[slot(kept, true)] as number) +
        Math.min(letGo, keepLong);
      if (cost < best.cost - 1e-9) best = { pings, keepLong: keepLong < letGo, cost };
    }
    return best;
  }
}

/** Index of a value: the newest live 1-hour entry (−1: none) and whether the last entry expired. */
function slot(longest: number, expired: boolean): number {
  return (longest + 1) * 2 + (expired ? 1 : 0);
}

function gapsWhere(chain: readonly ChainRequest[], matches: (request: ChainRequest) => boolean): number[] {
  return chain
    .filter((request) => request.gapAfterMs !== null && matches(request))
    .map((request) => request.gapAfterMs as number);
}

/** The workload's gap distributions by class and reply kind, each with its decisions' shares, computed once. */
class Distributions {
  private readonly known = new Map<string, Outcomes>();

  constructor(
    private readonly chain: readonly ChainRequest[],
    private readonly pings: boolean,
    private readonly given: OnlineFloorInput['gapsMs'],
  ) {}

  /** Gaps after requests of `requestClass` answered by `reply` (any reply: null), weighted by their count. */
  of(requestClass: RequestClass, reply: ReplyKind | null): Outcomes {
    return this.outcome(`${requestClass}/${reply}`, () => {
      const { given } = this;
      if (given) return (reply === null ? REPLY_KINDS : [reply]).flatMap((kind) => [...given(requestClass, kind)]);
      return gapsWhere(
        this.chain,
        (other) => other.requestClass === requestClass && (reply === null || other.replyKind === reply),
      );
    });
  }

  /** The gap that followed request `index` alone. */
  realized(index: number): Outcomes {
    return this.outcome(`#${index}`, () => [(this.chain[index] as ChainRequest).gapAfterMs ?? 0]);
  }

  private outcome(key: string, gaps: () => number[]): Outcomes {
    let outcome = this.known.get(key);
    if (!outcome) {
      const gapsMs = gaps();
      const most = this.pings ? KEEP_WARM_DEFAULTS.maxPings : 0;
      const shares = TTLS.map((ttl) => Array.from({ length: most + 1 }, (_, pings) => sharesOf(gapsMs, ttl, pings)));
      outcome = { weight: gapsMs.length, shares };
      this.known.set(key, outcome);
    }
    return outcome;
  }
}

/**
 * For each request, the gap distributions its TTL is priced over, with their weights: with
 * `class` knowledge, one per reply kind its class was followed by (weighted by how often), since
 * the pings are chosen once the reply is known; with `class-and-reply`, its class and reply's; with
 * `realized-gap`, the gap itself.
 */
function outcomesByRequest(
  chain: readonly ChainRequest[],
  knowledge: FloorKnowledge,
  distributions: Distributions,
): Map<number, Outcomes[]> {
  const byRequest = new Map<number, Outcomes[]>();
  chain.forEach((request, index) => {
    if (request.gapAfterMs === null) return;
    if (knowledge === 'realized-gap') {
      byRequest.set(index, [{ ...distributions.realized(index), weight: 1 }]);
    } else if (knowledge === 'class-and-reply') {
      byRequest.set(index, [{ ...distributions.of(request.requestClass, request.replyKind), weight: 1 }]);
    } else {
      const sameClass = distributions.of(request.requestClass, null).weight;
      const outcomes = REPLY_KINDS.map((reply) => distributions.of(request.requestClass, reply))
        .filter((outcome) => outcome.weight > 0)
        .map((outcome) => ({ ...outcome, weight: outcome.weight / sameClass }));
      byRequest.set(index, outcomes);
    }
  });
  return byRequest;
}
