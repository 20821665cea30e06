import { prewarmingParamsReason } from '../runtime/prewarming.js';
import type { HindsightRequest } from './hindsight-run.js';
import type { Layout, OracleLayouts, TailScope } from './oracle-layouts.js';
import type { OracleRules } from './oracle-rules.js';

/*
 * The oracle's per-request arithmetic: what a request can read of what the previous one left
 * (with or without keep-alive pings through the gap), and what it may keep cached after it.
 * The search in hindsight-oracle.ts combines these choices.
 */

export interface Option {
  read: number;
  cached: number;
  cachedLong: number;
  ttl: 'short' | 'long';
}

/** The choices after reading: keep what was read, or write on to where the next request stops matching. */
export function options(
  rules: OracleRules,
  read: { all: number; long: number },
  useful: number,
  sequenceTokens: number,
  slack: number,
): Option[] {
  if (rules.kind !== 'explicit') {
    // Automatic caching and local slots keep the whole prompt (up to the provider's cap), free.
    const cached = Math.min(sequenceTokens, rules.maxCachedTokens);
    return [{ read: read.all, cached, cachedLong: cached, ttl: 'short' }];
  }
  const result: Option[] = [{ read: read.all, cached: read.all, cachedLong: read.long, ttl: 'short' }];
  useful = Math.min(useful, rules.maxCachedTokens);
  if (useful > read.all && useful + slack >= rules.minimumTokens) {
    result.push({ read: read.all, cached: useful, cachedLong: read.long, ttl: 'short' });
    // A long entry covers its whole prefix, whatever TTL the part it read was written with: only
    // the new segment is billed at the long rate (the read point is marked long too, so long
    // markers still come before short ones).
    result.push({ read: read.all, cached: useful, cachedLong: useful, ttl: 'long' });
  }
  return result;
}

/** A read the request can make, and the keep-alive pings (count, cost) that kept it alive through the gap. */
export interface ReadChoice {
  all: number;
  long: number;
  pings: number;
  pingCost: number;
}

/**
 * The entries a request can read: those the previous request left, or — when the session comes
 * back to a model after requests on another (A → B → A) — those that model's last request left
 * (`State.parked`): the provider keeps them meanwhile, and they live by their own TTL from it.
 */
export interface Source {
  index: number;
  request: HindsightRequest;
  scope: TailScope;
  cached: number;
  cachedLong: number;
}

/**
 * What the request can read: what the gap since the source left alive, and — where the model
 * takes pre-warm requests — what pings before each expiry kept alive instead: `⌈gap ÷ TTL⌉ − 1`
 * pings, each billed as a read of the tokens it keeps (and no more: the ping's own few tokens are
 * left out, which only lowers the bound). Pinging every entry at the short TTL keeps all of them;
 * pinging only the long entries at the long TTL keeps those. Keeping any shorter prefix costs in
 * proportion to its length, so one of these, or no ping, is always the cheapest.
 */
export function readChoices(
  rules: OracleRules,
  source: Source,
  request: HindsightRequest,
  readWith: (alive?: number) => { all: number; long: number },
): ReadChoice[] {
  const choices: ReadChoice[] = [{ ...readWith(), pings: 0, pingCost: 0 }];
  const gap = request.at - source.request.at;
  if (!pingable(rules, source.request) || source.request.model !== request.model || gap <= rules.shortTtlMs) return choices;
  const pinged = (alive: number, ttl: number) => {
    if (alive === 0 || !Number.isFinite(ttl)) return;
    const read = readWith(alive);
    const pings = Math.ceil(gap / ttl) - 1;
    if (read.all > 0) choices.push({ ...read, pings, pingCost: pings * rules.readRate * read.all });
  };
  pinged(source.cached, rules.shortTtlMs);
  if (gap > rules.longTtlMs && rules.longTtlMs > rules.shortTtlMs) pinged(source.cachedLong, rules.longTtlMs);
  return choices;
}

/**
 * Pings may keep `request`'s entries alive through the gap after it: the model takes pre-warm
 * requests (`OracleRules.keepAlivePings`) and the request's own parameters allow one — the
 * runtime's check (`prewarmingParamsReason`: not with extended thinking), which the strategies and
 * `SessionTtl` follow too. A ping no real request could send would make the bound unreachable.
 */
function pingable(rules: OracleRules, request: HindsightRequest): boolean {
  return rules.keepAlivePings && prewarmingParamsReason(request) === null;
}

/**
 * What the request can read of what `source` left, under the provider's lifetimes and minimum;
 * `aliveOverride`: the tokens pings kept alive through the gap.
 */
export function readTokens(
  rules: OracleRules,
  source: Source,
  request: HindsightRequest,
  layouts: OracleLayouts,
  index: number,
  scope: TailScope,
  slack: number,
  aliveOverride?: number,
): { all: number; long: number } {
  if (source.request.model !== request.model) return { all: 0, long: 0 };
  const gap = request.at - source.request.at;
  const alive = aliveOverride ?? (gap <= rules.shortTtlMs ? source.cached : gap <= rules.longTtlMs ? source.cachedLong : 0);
  if (alive === 0) return { all: 0, long: 0 };
  const sourceLayout = layouts.layout(source.index, source.scope);
  const withReply = rules.reusesReply && sourceLayout.trailingTokens === 0;
  const aliveInSlot =
    rules.reusesReply && alive === sourceLayout.sequenceTokens
      ? withReply
        ? sourceLayout.slotTokens
        : sourceLayout.sequenceTokens
      : alive;
  // Images first present: the messages' key changed, so only the static prefix (tools, system) is read.
  const keyed = rules.imagesKeyMessages && (source.request.images ?? false) !== (request.images ?? false);
  const matched = (bound: number) =>
    Math.min(
      layouts.matchedTokens(source.index, source.scope, index, scope, withReply, bound),
      keyed ? layouts.staticTokens(request) : Number.POSITIVE_INFINITY,
    );
  const all = roundRead(rules, matched(aliveInSlot), slack);
  const long = Math.min(all, roundRead(rules, matched(Math.min(alive, source.cachedLong)), slack));
  return { all, long };
}

/**
 * Tokens a real layout's prefix may hold beyond the oracle's count of it: earlier turns'
 * persisted tails (counted apart, `State.carried`) and one token per unit (joinable text is
 * counted one short). Only the minimum-prefix test uses it: a looser layout crossing the
 * minimum where the oracle's tighter count falls short must not read more than the oracle.
 */
export function slackOf(layout: Layout, carried: number): number {
  return carried + layout.sequence.length;
}

export function roundRead(rules: OracleRules, matched: number, slack = 0): number {
  const tokens = Math.min(matched, rules.maxCachedTokens);
  if (tokens + slack < rules.minimumTokens || tokens === 0) return 0;
  if (rules.incrementTokens <= 1) return tokens;
  return rules.minimumTokens + Math.floor((tokens - rules.minimumTokens) / rules.incrementTokens) * rules.incrementTokens;
}
