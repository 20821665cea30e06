import type { HindsightRequest, HindsightRun } from './hindsight-run.js';
import { matchedPrefix, OracleLayouts, staticUnits, sum, type TailScope, type ToolDeclaration } from './oracle-layouts.js';
import { type PaddingPlan, paddingPlans } from './oracle-padding.js';
import { options, type ReadChoice, readChoices, readTokens, type Source, slackOf } from './oracle-reads.js';
import type { OracleRules } from './oracle-rules.js';
import { type OracleRequestDecision, type Parked, prune, type State } from './oracle-states.js';

export type { TailScope, ToolDeclaration } from './oracle-layouts.js';
export type { OracleRequestDecision } from './oracle-states.js';

/**
 * Everything the oracle knows that no strategy can know when it builds a request. Each item
 * is used by the search below and nowhere else; strategies never see this module (a test
 * scans their imports).
 */
export const FUTURE_KNOWLEDGE = [
  /**
   * Where the next request's content stops matching this one (the next on the same model, when the
   * session moves to another model in between): how far a write can pay off.
   */
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
 * rendered at the turn's start); write the prefix up to exactly where the next request (of the same
 * model) stops matching, at the short or long TTL or not at all (a long entry covers its whole prefix, the
 * part read from short entries included); place breakpoints wherever it reads and
 * writes (never more than three a request); refresh entries on every read; keep entries alive
 * through a pause with keep-alive pings before each expiry where the model takes pre-warm
 * requests and the request before the pause has no extended thinking (each billed as a read of
 * what it keeps, `readChoices`); pad the static prefix to the minimum, per model
 * (`paddingPlans`); declare discovered tools deferred (Anthropic), up front or on
 * discovery; keep OpenAI caches alive for 24 hours; on Gemini create, keep and name explicit
 * caches, paying their storage. What it may not do: read an entry that no earlier request
 * wrote, read one model's entries on another or across a gap longer than the entry's TTL, read below the
 * minimum prefix or past the provider's cap, read past the static prefix where the session's
 * first image re-keys the messages (`OracleRules.imagesKeyMessages`), drop content the model must see, or rewrite
 * history — a persisted tail stays in history and is paid (at the read rate, its cheapest) in
 * every later request. Relaxations (each can only lower its cost, so it stays a lower bound):
 * joinable text counts one token less per unit (the run's wire framing aside); OpenAI's
 * 128-token read steps are not applied; a repeated `skill_load` result is empty;
 * the tool-search tool's own definition is free. A request that comes back to a model after
 * requests on another (A → B → A) reads what that model's last request left cached — the provider
 * keeps it meanwhile (`State.parked`) — alive by its TTL from that request or kept by pings; that
 * request may write up to where the return will stop matching, and pays for it.
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
  const paddings = paddingPlans(run, rulesOf, staticTokens);
  let best: OracleResult | null = null;
  for (const declaration of declarations) {
    for (const padding of paddings) {
      const result = search(run, rulesOf, declaration, padding);
      if (!best || result.cost < best.cost) best = result;
    }
  }
  return best as OracleResult;
}

/** What one request's step of the search shares across the states it extends. */
interface Step {
  index: number;
  request: HindsightRequest;
  previous: HindsightRequest | null;
  newTurn: boolean;
  rules: OracleRules;
  layouts: OracleLayouts;
  staticEnd: number;
  next: State[];
}

function search(
  run: HindsightRun,
  rulesOf: (model: string) => OracleRules,
  declaration: ToolDeclaration,
  padding: PaddingPlan,
): OracleResult {
  const layouts = new OracleLayouts(run, declaration, padding);
  let states: State[] = [
    {
      scope: 'request',
      cached: 0,
      cachedLong: 0,
      parked: [],
      explicit: null,
      carried: 0,
      cost: 0,
      processed: 0,
      trail: null,
    },
  ];
  run.requests.forEach((request, index) => {
    const previous = index > 0 ? (run.requests[index - 1] as HindsightRequest) : null;
    const newTurn = previous === null || previous.turn !== request.turn;
    // Each request is billed and cached under its own model's rules (a turn may switch models).
    const rules = rulesOf(request.model);
    const staticEnd = layouts.staticTokens(request);
    const step: Step = { index, request, previous, newTurn, rules, layouts, staticEnd, next: [] };
    for (const state of states) {
      const scopes: TailScope[] = newTurn ? ['request', 'turn'] : [state.scope];
      // The previous turn's persisted tail stays in history for the rest of the session: every
      // later request sends it again, counted here at the read rate (its cheapest) beside the layout.
      const carried =
        state.carried +
        (newTurn && previous && state.scope === 'turn' ? sum(previous.turnTail) + (previous.clockAtTurnStart?.tokens ?? 0) : 0);
      const entries = entriesFor(run.requests, state, previous, index);
      for (const scope of scopes) extend(step, state, entries, scope, carried, index + 1 < run.requests.length);
    }
    states = prune(step.next);
  });
  const best = states.reduce((left, right) => (right.cost < left.cost ? right : left));
  const rules = rulesOf(run.requests[0]?.model ?? '');
  const requests: OracleRequestDecision[] = [];
  for (let trail = best.trail; trail; trail = trail.previous) requests.unshift(trail.decision);
  return {
    cost: best.cost,
    priced: rules.priced,
    processedTokens: best.processed,
    paddingTokens: padding.get(run.requests[0]?.model ?? '') ?? 0,
    toolDeclaration: declaration,
    requests,
    futureKnowledge: FUTURE_KNOWLEDGE,
  };
}

/**
 * Where request `index` reads from, and which other models' entries stay parked. On a model
 * switch the previous request's entries are parked under its model (the provider keeps them while
 * the session runs on another), and the request reads what its own model's last request left, if
 * anything: nothing is free, the return reads only what that request left cached, alive by its TTL
 * or kept by pings. Otherwise it reads the previous request's entries.
 */
function entriesFor(
  requests: readonly HindsightRequest[],
  state: State,
  previous: HindsightRequest | null,
  index: number,
): { source: Source | null; parked: Parked[] } {
  if (!previous) return { source: null, parked: state.parked };
  const { scope, cached, cachedLong } = state;
  if (previous.model === requests[index]?.model) {
    return { source: { index: index - 1, request: previous, scope, cached, cachedLong }, parked: state.parked };
  }
  const model = requests[index]?.model;
  const own = state.parked.find((entry) => entry.model === model);
  const parked = state.parked.filter((entry) => entry.model !== model && entry.model !== previous.model);
  // Parked only if the session comes back to that model: otherwise nothing will read them.
  const returns = requests.slice(index + 1).some((later) => later.model === previous.model);
  if (cached > 0 && returns) parked.push({ model: previous.model, index: index - 1, scope, cached, cachedLong });
  parked.sort((left, right) => (left.model < right.model ? -1 : left.model > right.model ? 1 : 0));
  const source = own ? { ...own, request: requests[own.index] as HindsightRequest } : null;
  return { source, parked };
}

/** Every state one state leads to when this request lays its tail out at `scope`. */
function extend(
  step: Step,
  state: State,
  entries: { source: Source | null; parked: Parked[] },
  scope: TailScope,
  carried: number,
  hasNext: boolean,
): void {
  const { index, request, previous, rules, layouts } = step;
  const { source, parked } = entries;
  const layout = layouts.layout(index, scope);
  const sequenceTokens = layout.sequenceTokens;
  const inputTokens = sequenceTokens + layout.trailingTokens;
  const useful = hasNext ? layouts.usefulTokens(index, scope) : 0;
  const slack = slackOf(layout, carried);
  const reads: ReadChoice[] = source
    ? readChoices(rules, source, request, (alive) => readTokens(rules, source, request, layouts, index, scope, slack, alive))
    : [{ all: 0, long: 0, pings: 0, pingCost: 0 }];
  const decision = (
    read: ReadChoice,
    readCount: number,
    write: number,
    writeTtl: OracleRequestDecision['writeTtl'],
    cost: number,
  ) => ({
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
    pings: read.pings,
    pingCost: read.pingCost,
  });
  const push = (
    kept: Omit<State, 'trail' | 'cost' | 'processed' | 'carried' | 'parked'>,
    layoutCost: number,
    readCount: number,
    made: OracleRequestDecision,
  ) => {
    const cost = layoutCost + rules.readRate * carried;
    step.next.push({
      ...kept,
      parked,
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
    explicit && rules.explicitCache && previous
      ? explicit.tokens * ((request.at - previous.at) / HOUR) * rules.explicitCache.storageRatePerTokenHour
      : 0;
  for (const read of reads) {
    for (const option of options(rules, read, useful, sequenceTokens, slack)) {
      const cost =
        read.pingCost +
        rules.readRate * option.read +
        (option.ttl === 'long' ? rules.write1hRate : rules.write5mRate) * (option.cached - option.read) +
        rules.inputRate * (inputTokens - option.cached);
      const made = decision(
        read,
        option.read,
        option.cached - option.read,
        option.cached > option.read ? option.ttl : null,
        cost,
      );
      const base = { scope, cached: option.cached, cachedLong: option.cachedLong };
      push({ ...base, explicit: null }, cost, option.read, made);
      if (explicit) push({ ...base, explicit }, cost + storage, option.read, { ...made, storageCost: storage });
    }
  }
  const read = reads[0] as ReadChoice;
  const explicitRules = rules.explicitCache;
  if (!explicitRules) return;
  // Name the kept explicit cache: it is read whole; the request's own prompt is then not
  // reusable implicitly by a request that does not name the same cache (its prefix differs).
  if (explicit && matchedPrefix(explicit.sequence, layout.sequence).previousTokens >= explicit.tokens) {
    const cost = storage + explicitRules.readRate * explicit.tokens + rules.inputRate * (inputTokens - explicit.tokens);
    push({ scope, cached: 0, cachedLong: 0, explicit }, cost, explicit.tokens, {
      ...decision(read, explicit.tokens, 0, null, cost),
      explicitReadTokens: explicit.tokens,
      storageCost: storage,
    });
  }
  // Create one from this request's prefix (the static part, or all the next request shares) and name it.
  const candidates = new Set([Math.min(step.staticEnd, sequenceTokens), Math.max(useful, read.all)]);
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
      { ...decision(read, tokens, tokens, 'explicit', cost), explicitReadTokens: tokens },
    );
  }
}

const HOUR = 3_600_000;
