import type { HindsightRequest, HindsightRun, HindsightUnit } from './hindsight-run.js';
import type { OracleRules } from './oracle-rules.js';

/**
 * Everything the oracle knows that no strategy can know when it builds a request. Each item
 * is used by the search below and nowhere else; strategies never see this module (a test
 * scans their imports).
 */
export const FUTURE_KNOWLEDGE = [
  /** Where the next request's content stops matching this one: how far a write can pay off. */
  'next-request-content',
  /** The gap before the next request: which TTL (or none) a write needs. */
  'next-gap',
  /** How many steps each turn's tool loop will take: whether the tail is worth persisting for the turn. */
  'steps-left-in-turn',
  /** The tools the session will discover: declare them up front, append them, or defer them. */
  'tools-to-be-discovered',
  /** The length of the whole session: whether padding to the minimum prefix pays for itself. */
  'session-length',
  /** The model's reply (a local engine keeps it in the slot; used where the template lets the next prompt read it). */
  'reply',
] as const;

export type FutureKnowledge = (typeof FUTURE_KNOWLEDGE)[number];

/** Where the oracle put the turn tail for one turn. */
export type TailScope = 'request' | 'turn';

/** How the oracle declared the tools the session discovers. */
export type ToolDeclaration = 'none-discovered' | 'deferred' | 'up-front' | 'on-discovery';

export interface OracleRequestDecision {
  turn: number;
  step: number;
  inputTokens: number;
  readTokens: number;
  writeTokens: number;
  /** `explicit`: the request created an explicit cache (Gemini `cachedContents`) of `writeTokens` and read it. */
  writeTtl: 'short' | 'long' | 'explicit' | null;
  /** Tokens read from an explicit cache (included in `readTokens`). */
  explicitReadTokens: number;
  /** Storage of the explicit cache kept over the gap before this request (included in `cost`). */
  storageCost: number;
  tailScope: TailScope;
  cost: number;
}

export interface OracleResult {
  /** Total cost: USD when `priced`, else tokens (uncached-input equivalents; processed tokens for local engines). */
  cost: number;
  priced: boolean;
  /** Tokens the engine or provider processes without reuse (input − read), summed. */
  processedTokens: number;
  /** Padding tokens the oracle added to clear the minimum prefix (0 when it chose not to). */
  paddingTokens: number;
  toolDeclaration: ToolDeclaration;
  requests: OracleRequestDecision[];
  futureKnowledge: readonly FutureKnowledge[];
}

/**
 * The cost of the best run the provider allows, knowing the whole future (`FUTURE_KNOWLEDGE`):
 * a search over every request's read, write length and TTL, each turn's tail scope, padding and
 * tool declaration. It never runs a strategy or a session; it reads `run` only.
 *
 * What it may do: put the tail last or persist it in the turn's user message (with the clock
 * rendered at the turn's start); write the prefix up to exactly where the next request stops
 * matching, at the short or long TTL or not at all (a long entry covers its whole prefix, the
 * part read from short entries included); place breakpoints wherever it reads and
 * writes (never more than three a request); refresh entries on every read; pad the static
 * prefix to the minimum; declare discovered tools deferred (Anthropic), up front or on
 * discovery; keep OpenAI caches alive for 24 hours; on Gemini create, keep and name explicit
 * caches, paying their storage. What it may not do: read an entry that no earlier request
 * wrote, read across a model change or a gap longer than the entry's TTL, read below the
 * minimum prefix or past the provider's cap, drop content the model must see, or rewrite
 * history — a persisted tail stays in history and is paid (at the read rate, its cheapest) in
 * every later request. Relaxations (each can only lower its cost, so it stays a lower bound):
 * joinable text counts one token less per unit (the run's wire framing aside); OpenAI's
 * 128-token read steps are not applied; a repeated `skill_load` result is empty;
 * the tool-search tool's own definition is free.
 */
export function hindsightOracle(run: HindsightRun, rulesFor: OracleRules | ((model: string) => OracleRules)): OracleResult {
  const memo = new Map<string, OracleRules>();
  const rulesOf = (model: string): OracleRules => {
    if (typeof rulesFor !== 'function') return rulesFor;
    let rules = memo.get(model);
    if (!rules) {
      rules = rulesFor(model);
      memo.set(model, rules);
    }
    return rules;
  };
  const rules = rulesOf(run.requests[0]?.model ?? '');
  const discovers = run.requests.some((request) => request.discoveredTools.length > 0);
  const declarations: ToolDeclaration[] = !discovers
    ? ['none-discovered']
    : rules.deferredTools
      ? ['deferred']
      : ['up-front', 'on-discovery'];
  const staticTokens = run.requests[0] ? sum(staticUnits(run.requests[0], 'on-discovery', [])) : 0;
  const paddings = paddingCandidates(run, rules, staticTokens);
  let best: OracleResult | null = null;
  for (const declaration of declarations) {
    for (const padding of paddings) {
      const result = search(run, rulesOf, declaration, padding);
      if (!best || result.cost < best.cost) best = result;
    }
  }
  return best as OracleResult;
}

/** Most padding lengths tried; past it, an even sample of them (the search runs once per length). */
const MAX_PADDINGS = 24;

/**
 * Padding lengths worth trying: none, and each length that brings some request's prefix exactly
 * to the minimum (the static prefix's, and every request's own, on any declaration and tail
 * scope). Between two of them more padding only costs more, so the cheapest padding is one of
 * them: a layout that clears the minimum with more content of its own (its wording, tools it
 * declares early) is matched by the padding that reaches the same point.
 */
function paddingCandidates(run: HindsightRun, rules: OracleRules, staticTokens: number): number[] {
  const minimum = rules.minimumTokens;
  if (!Number.isFinite(minimum) || minimum <= staticTokens || rules.kind === 'local') return [0];
  const lengths = new Set<number>([0, minimum - staticTokens]);
  const allDiscovered = run.requests.at(-1)?.discoveredTools ?? [];
  const declarations: ToolDeclaration[] = ['on-discovery', 'up-front', 'deferred'];
  run.requests.forEach((_, index) => {
    for (const declaration of declarations) {
      for (const scope of ['request', 'turn'] as const) {
        const tokens = sum(layoutFor(run.requests, index, scope, declaration, allDiscovered, 0).sequence);
        if (tokens < minimum) lengths.add(minimum - tokens);
      }
    }
  });
  const sorted = [...lengths].sort((left, right) => left - right);
  if (sorted.length <= MAX_PADDINGS) return sorted;
  return Array.from(
    { length: MAX_PADDINGS },
    (_, index) => sorted[Math.round((index * (sorted.length - 1)) / (MAX_PADDINGS - 1))] as number,
  );
}

interface Layout {
  /** Cacheable units in prefix order; `ghost` units belong to a turn-scoped tail. */
  sequence: Array<HindsightUnit & { ghost?: true }>;
  /** Tokens sent after the cacheable units (a request-scoped tail). */
  trailingTokens: number;
  /** The reply's units (local engines keep them in the slot after the prompt). */
  reply: HindsightUnit[];
}

interface State {
  scope: TailScope;
  /** Cached tokens of the previous request's sequence, and the part of them with the long TTL. */
  cached: number;
  cachedLong: number;
  /** The explicit cache the run keeps (Gemini `cachedContents`), if any. */
  explicit: ExplicitCache | null;
  /**
   * Tokens of earlier turns' tails that were persisted in their turn's user message and stay in
   * history: every later request sends them again, at the read rate at the least.
   */
  carried: number;
  cost: number;
  processed: number;
  trail: Trail | null;
}

/** An explicit cache: the first `tokens` tokens of the sequence of the request that created it. */
interface ExplicitCache {
  key: string;
  model: string;
  tokens: number;
  sequence: Layout['sequence'];
}

interface Trail {
  decision: OracleRequestDecision;
  previous: Trail | null;
}

function search(
  run: HindsightRun,
  rulesOf: (model: string) => OracleRules,
  declaration: ToolDeclaration,
  padding: number,
): OracleResult {
  const allDiscovered = run.requests.at(-1)?.discoveredTools ?? [];
  const layoutCache = new Map<string, Layout>();
  const layoutOf = (index: number, scope: TailScope): Layout => {
    const key = `${index}/${scope}`;
    let layout = layoutCache.get(key);
    if (!layout) {
      layout = layoutFor(run.requests, index, scope, declaration, allDiscovered, padding);
      layoutCache.set(key, layout);
    }
    return layout;
  };
  let states: State[] = [
    { scope: 'request', cached: 0, cachedLong: 0, explicit: null, carried: 0, cost: 0, processed: 0, trail: null },
  ];
  run.requests.forEach((request, index) => {
    const previous = index > 0 ? (run.requests[index - 1] as HindsightRequest) : null;
    const newTurn = previous === null || previous.turn !== request.turn;
    // Each request is billed and cached under its own model's rules (a turn may switch models).
    const rules = rulesOf(request.model);
    const next: State[] = [];
    for (const state of states) {
      const scopes: TailScope[] = newTurn ? ['request', 'turn'] : [state.scope];
      // The previous turn's persisted tail stays in history for the rest of the session: every
      // later request sends it again, counted here at the read rate (its cheapest) beside the layout.
      const carried =
        state.carried +
        (newTurn && previous && state.scope === 'turn' ? sum(previous.turnTail) + (previous.clockAtTurnStart?.tokens ?? 0) : 0);
      for (const scope of scopes) {
        const layout = layoutOf(index, scope);
        const inputTokens = sum(layout.sequence) + layout.trailingTokens;
        const useful = index + 1 < run.requests.length ? usefulTokens(run, index, scope, layoutOf) : 0;
        const read = previous
          ? readTokens(rules, previous, request, layoutOf(index - 1, state.scope), layout, state, slackOf(layout, carried))
          : { all: 0, long: 0 };
        const sequenceTokens = sum(layout.sequence);
        const decision = (readCount: number, write: number, writeTtl: OracleRequestDecision['writeTtl'], cost: number) => ({
          turn: request.turn,
          step: request.step,
          inputTokens,
          readTokens: readCount,
          writeTokens: write,
          writeTtl,
          tailScope: scope,
          cost,
          explicitReadTokens: 0,
          storageCost: 0,
        });
        const push = (
          kept: Omit<State, 'trail' | 'cost' | 'processed' | 'carried'>,
          layoutCost: number,
          readCount: number,
          made: OracleRequestDecision,
        ) => {
          const cost = layoutCost + rules.readRate * carried;
          next.push({
            ...kept,
            carried,
            cost: state.cost + cost,
            processed: state.processed + inputTokens - readCount,
            trail: {
              previous: state.trail,
              decision: { ...made, inputTokens: inputTokens + carried, readTokens: made.readTokens + carried, cost },
            },
          });
        };
        // An explicit cache kept over the gap before this request costs its storage.
        const explicit =
          rules.explicitCache && state.explicit && previous && state.explicit.model === request.model ? state.explicit : null;
        const storage =
          explicit && rules.explicitCache
            ? explicit.tokens *
              ((request.at - (previous as HindsightRequest).at) / HOUR) *
              rules.explicitCache.storageRatePerTokenHour
            : 0;
        for (const option of options(rules, read, useful, sequenceTokens, slackOf(layout, carried))) {
          const cost =
            rules.readRate * option.read +
            (option.ttl === 'long' ? rules.write1hRate : rules.write5mRate) * (option.cached - option.read) +
            rules.inputRate * (inputTokens - option.cached);
          const made = decision(option.read, option.cached - option.read, option.cached > option.read ? option.ttl : null, cost);
          const base = { scope, cached: option.cached, cachedLong: option.cachedLong };
          push({ ...base, explicit: null }, cost, option.read, made);
          if (explicit) push({ ...base, explicit }, cost + storage, option.read, { ...made, storageCost: storage });
        }
        const explicitRules = rules.explicitCache;
        if (explicitRules) {
          // Name the kept explicit cache: it is read whole; the request's own prompt is then not
          // reusable implicitly by a request that does not name the same cache (its prefix differs).
          if (explicit && matchedPrefix(explicit.sequence, layout.sequence).previousTokens >= explicit.tokens) {
            const cost = storage + explicitRules.readRate * explicit.tokens + rules.inputRate * (inputTokens - explicit.tokens);
            push({ scope, cached: 0, cachedLong: 0, explicit }, cost, explicit.tokens, {
              ...decision(explicit.tokens, 0, null, cost),
              explicitReadTokens: explicit.tokens,
              storageCost: storage,
            });
          }
          // Create one from this request's prefix (the static part, or all the next request shares) and name it.
          const staticEnd = sum(staticUnits(request, declaration, allDiscovered)) + padding;
          const candidates = new Set([Math.min(staticEnd, sequenceTokens), Math.max(useful, read.all)]);
          for (const tokens of candidates) {
            if (tokens < explicitRules.minimumTokens || tokens <= 0) continue;
            const cost = (explicitRules.createRate + explicitRules.readRate) * tokens + rules.inputRate * (inputTokens - tokens);
            push(
              {
                scope,
                cached: 0,
                cachedLong: 0,
                explicit: { key: `${index}/${scope}/${tokens}`, model: request.model, tokens, sequence: layout.sequence },
              },
              cost,
              tokens,
              { ...decision(tokens, tokens, 'explicit', cost), explicitReadTokens: tokens },
            );
          }
        }
      }
    }
    states = prune(next);
  });
  const best = states.reduce((left, right) => (right.cost < left.cost ? right : left));
  const rules = rulesOf(run.requests[0]?.model ?? '');
  const requests: OracleRequestDecision[] = [];
  for (let trail = best.trail; trail; trail = trail.previous) requests.unshift(trail.decision);
  return {
    cost: best.cost,
    priced: rules.priced,
    processedTokens: best.processed,
    paddingTokens: padding,
    toolDeclaration: declaration,
    requests,
    futureKnowledge: FUTURE_KNOWLEDGE,
  };
}

interface Option {
  read: number;
  cached: number;
  cachedLong: number;
  ttl: 'short' | 'long';
}

/** The choices after reading: keep what was read, or write on to where the next request stops matching. */
function options(
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

/** What the request can read of what the previous one left, under the provider's lifetimes and minimum. */
function readTokens(
  rules: OracleRules,
  previous: HindsightRequest,
  request: HindsightRequest,
  previousLayout: Layout,
  layout: Layout,
  state: State,
  slack: number,
): { all: number; long: number } {
  if (previous.model !== request.model) return { all: 0, long: 0 };
  const gap = request.at - previous.at;
  const alive = gap <= rules.shortTtlMs ? state.cached : gap <= rules.longTtlMs ? state.cachedLong : 0;
  if (alive === 0) return { all: 0, long: 0 };
  const slot =
    rules.reusesReply && previousLayout.trailingTokens === 0
      ? [...previousLayout.sequence, ...previousLayout.reply]
      : previousLayout.sequence;
  const aliveInSlot = rules.reusesReply && alive === sum(previousLayout.sequence) ? sum(slot) : alive;
  const all = roundRead(rules, matchedTokens(slot, layout.sequence, aliveInSlot), slack);
  const long = Math.min(all, roundRead(rules, matchedTokens(slot, layout.sequence, Math.min(alive, state.cachedLong)), slack));
  return { all, long };
}

/**
 * Tokens a real layout's prefix may hold beyond the oracle's count of it: earlier turns'
 * persisted tails (counted apart, `State.carried`) and one token per unit (joinable text is
 * counted one short). Only the minimum-prefix test uses it: a looser layout crossing the
 * minimum where the oracle's tighter count falls short must not read more than the oracle.
 */
function slackOf(layout: Layout, carried: number): number {
  return carried + layout.sequence.length;
}

function roundRead(rules: OracleRules, matched: number, slack = 0): number {
  const tokens = Math.min(matched, rules.maxCachedTokens);
  if (tokens + slack < rules.minimumTokens || tokens === 0) return 0;
  if (rules.incrementTokens <= 1) return tokens;
  return rules.minimumTokens + Math.floor((tokens - rules.minimumTokens) / rules.incrementTokens) * rules.incrementTokens;
}

/** How far into this request's sequence the next request keeps matching (tokens of this sequence). */
function usefulTokens(
  run: HindsightRun,
  index: number,
  scope: TailScope,
  layoutOf: (index: number, scope: TailScope) => Layout,
): number {
  const request = run.requests[index] as HindsightRequest;
  const next = run.requests[index + 1] as HindsightRequest;
  if (next.model !== request.model) return 0;
  const nextScope: TailScope = next.turn === request.turn ? scope : 'request';
  const current = layoutOf(index, scope).sequence;
  const following = layoutOf(index + 1, nextScope).sequence;
  return matchedPrefix(current, following).previousTokens;
}

/** Tokens of `current` read from `previous` when the first `alive` tokens of `previous` are cached. */
function matchedTokens(previous: Layout['sequence'], current: Layout['sequence'], alive: number): number {
  return matchedPrefix(previous, current, alive).currentTokens;
}

/**
 * The common prefix of `previous` and `current` (whole units), stopping before it would pass
 * the first `alive` tokens of `previous`: its length in each sequence's tokens.
 */
function matchedPrefix(
  previous: Layout['sequence'],
  current: Layout['sequence'],
  alive = Number.POSITIVE_INFINITY,
): { previousTokens: number; currentTokens: number } {
  let previousIndex = 0;
  let previousTokens = 0;
  let currentTokens = 0;
  let matchedPrevious = 0;
  let matchedCurrent = 0;
  for (const unit of current) {
    // An earlier turn's persisted tail is skipped here: the search pays for it separately (`State.carried`).
    while (previous[previousIndex]?.ghost && previous[previousIndex]?.id !== unit.id) {
      previousTokens += previous[previousIndex]?.tokens ?? 0;
      previousIndex++;
    }
    const candidate = previous[previousIndex];
    if (!candidate || candidate.id !== unit.id) break;
    previousTokens += candidate.tokens;
    currentTokens += unit.tokens;
    previousIndex++;
    if (previousTokens > alive) break;
    matchedPrevious = previousTokens;
    matchedCurrent = currentTokens;
  }
  return { previousTokens: matchedPrevious, currentTokens: matchedCurrent };
}

function layoutFor(
  requests: readonly HindsightRequest[],
  index: number,
  scope: TailScope,
  declaration: ToolDeclaration,
  allDiscovered: readonly HindsightUnit[],
  padding: number,
): Layout {
  const request = requests[index] as HindsightRequest;
  const keepReferences = declaration === 'deferred';
  const history = (units: readonly HindsightUnit[]) => units.filter((unit) => keepReferences || !unit.toolReference);
  const tail = [...request.turnTail];
  const sequence: Layout['sequence'] = [
    ...(padding > 0 ? [{ id: 'padding', tokens: padding }] : []),
    ...staticUnits(request, declaration, allDiscovered),
    ...history(request.earlierHistory),
    ...request.userMessage,
  ];
  let trailingTokens = 0;
  if (scope === 'turn') {
    const clock = request.clockAtTurnStart ? [request.clockAtTurnStart] : [];
    sequence.push(...[...tail, ...clock].map((unit) => ({ ...unit, ghost: true as const })));
  } else {
    trailingTokens = sum(tail) + (request.clockNow?.tokens ?? 0);
  }
  sequence.push(...history(request.turnHistory));
  const next = requests[index + 1];
  const replyPrefix = `t${request.turn}/s${request.step}/reply/`;
  const reply = next ? [...next.earlierHistory, ...next.turnHistory].filter((unit) => unit.id.startsWith(replyPrefix)) : [];
  return { sequence, trailingTokens, reply };
}

function staticUnits(
  request: HindsightRequest,
  declaration: ToolDeclaration,
  allDiscovered: readonly HindsightUnit[],
): HindsightUnit[] {
  const tools =
    declaration === 'up-front'
      ? [...request.tools, ...allDiscovered]
      : declaration === 'on-discovery'
        ? [...request.tools, ...request.discoveredTools]
        : request.tools;
  return [...tools, ...request.statics];
}

/** Keep, for each (scope, cached, cachedLong, explicit cache), the cheapest state, and drop states another beats on every count. */
function prune(states: State[]): State[] {
  const byKey = new Map<string, State>();
  for (const state of states) {
    const key = `${state.scope}/${state.cached}/${state.cachedLong}/${state.carried}/${state.explicit?.key ?? ''}`;
    const known = byKey.get(key);
    if (!known || state.cost < known.cost) byKey.set(key, state);
  }
  const unique = [...byKey.values()].sort((left, right) => left.cost - right.cost);
  const kept: State[] = [];
  for (const state of unique) {
    const dominated = kept.some(
      (other) =>
        other.scope === state.scope &&
        other.explicit?.key === state.explicit?.key &&
        other.carried <= state.carried &&
        other.cost <= state.cost &&
        other.cached >= state.cached &&
        other.cachedLong >= state.cachedLong,
    );
    if (!dominated) kept.push(state);
  }
  return kept;
}

const HOUR = 3_600_000;

function sum(units: readonly HindsightUnit[]): number {
  let total = 0;
  for (const unit of units) total += unit.tokens;
  return total;
}
