import type { HindsightRequest, HindsightRun, HindsightUnit } from './hindsight-run.js';

/** Where the oracle put the turn tail for one turn. */
export type TailScope = 'request' | 'turn';

/** How the oracle declared the tools the session discovers. */
export type ToolDeclaration = 'none-discovered' | 'deferred' | 'up-front' | 'on-discovery';

export interface Layout {
  /** Cacheable units in prefix order; `ghost` units belong to a turn-scoped tail. */
  sequence: Array<HindsightUnit & { ghost?: true }>;
  /** Tokens of `sequence`. */
  sequenceTokens: number;
  /** Tokens sent after the cacheable units (a request-scoped tail). */
  trailingTokens: number;
  /** The reply's units (local engines keep them in the slot after the prompt). */
  reply: HindsightUnit[];
  /** Tokens of `sequence` followed by `reply`. */
  slotTokens: number;
}

/**
 * Where two sequences stop matching, recorded once: after the k-th matched unit, the tokens
 * walked in the previous sequence (`previousEnds[k]`, nondecreasing) and in the current one.
 * Any `alive` bound is then answered by a binary search instead of a walk of the sequences.
 */
interface MatchProfile {
  previousEnds: number[];
  currentEnds: number[];
}

/**
 * The layouts one search (a tool declaration and a padding length) reads, and the prefix
 * matches between them, each computed once: the search asks for them once per state, and
 * states outnumber layouts by far.
 */
export class OracleLayouts {
  private readonly layouts = new Map<string, Layout>();
  private readonly profiles = new Map<string, MatchProfile>();
  private readonly useful = new Map<string, number>();
  private readonly allDiscovered: readonly HindsightUnit[];

  constructor(
    private readonly run: HindsightRun,
    private readonly declaration: ToolDeclaration,
    /** Padding per model (`OracleResult.paddingTokens` is the first request's model's). */
    private readonly padding: ReadonlyMap<string, number>,
  ) {
    this.allDiscovered = run.requests.at(-1)?.discoveredTools ?? [];
  }

  layout(index: number, scope: TailScope): Layout {
    const key = `${index}/${scope}`;
    let layout = this.layouts.get(key);
    if (!layout) {
      const padding = this.padding.get(this.run.requests[index]?.model ?? '') ?? 0;
      layout = layoutFor(this.run.requests, index, scope, this.declaration, this.allDiscovered, padding);
      this.layouts.set(key, layout);
    }
    return layout;
  }

  /**
   * How far into request `index`'s sequence the next request of the same model keeps matching
   * (tokens of this sequence): the next request, or — when the session moves to another model
   * next — the request that comes back to this one (A → B → A: what A's entries can still serve).
   */
  usefulTokens(index: number, scope: TailScope): number {
    const key = `${index}/${scope}`;
    const known = this.useful.get(key);
    if (known !== undefined) return known;
    const request = this.run.requests[index] as HindsightRequest;
    const target = this.nextOfModel(index);
    let tokens = 0;
    if (target !== null) {
      const next = this.run.requests[target] as HindsightRequest;
      const nextScope: TailScope = next.turn === request.turn ? scope : 'request';
      tokens = matchedPrefix(this.layout(index, scope).sequence, this.layout(target, nextScope).sequence).previousTokens;
    }
    this.useful.set(key, tokens);
    return tokens;
  }

  /** The next request after `index` on the same model, or null. */
  private nextOfModel(index: number): number | null {
    const model = this.run.requests[index]?.model;
    for (let next = index + 1; next < this.run.requests.length; next++) {
      if (this.run.requests[next]?.model === model) return next;
    }
    return null;
  }

  /**
   * Tokens of request `index`'s sequence read from an earlier request's (`source`: the previous
   * one, or on a return to a model that model's last) when the first `alive` tokens of the
   * source's slot (its sequence, and its reply when `withReply`) are cached.
   */
  matchedTokens(
    source: number,
    sourceScope: TailScope,
    index: number,
    scope: TailScope,
    withReply: boolean,
    alive: number,
  ): number {
    const key = `${source}>${index}/${sourceScope}/${scope}/${withReply ? 'r' : ''}`;
    let profile = this.profiles.get(key);
    if (!profile) {
      const earlier = this.layout(source, sourceScope);
      const slot = withReply ? [...earlier.sequence, ...earlier.reply] : earlier.sequence;
      profile = matchProfile(slot, this.layout(index, scope).sequence);
      this.profiles.set(key, profile);
    }
    return boundedMatch(profile, alive).currentTokens;
  }

  staticTokens(request: HindsightRequest): number {
    return sum(staticUnits(request, this.declaration, this.allDiscovered)) + (this.padding.get(request.model) ?? 0);
  }
}

function matchProfile(previous: Layout['sequence'], current: Layout['sequence']): MatchProfile {
  const previousEnds: number[] = [];
  const currentEnds: number[] = [];
  let previousIndex = 0;
  let previousTokens = 0;
  let currentTokens = 0;
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
    previousEnds.push(previousTokens);
    currentEnds.push(currentTokens);
  }
  return { previousEnds, currentEnds };
}

/** The last matched boundary that does not pass `alive` tokens of the previous sequence. */
function boundedMatch(profile: MatchProfile, alive: number): { previousTokens: number; currentTokens: number } {
  const ends = profile.previousEnds;
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((ends[middle] as number) <= alive) low = middle + 1;
    else high = middle;
  }
  if (low === 0) return { previousTokens: 0, currentTokens: 0 };
  return { previousTokens: ends[low - 1] as number, currentTokens: profile.currentEnds[low - 1] as number };
}

/**
 * The common prefix of `previous` and `current` (whole units), stopping before it would pass
 * the first `alive` tokens of `previous`: its length in each sequence's tokens.
 */
export function matchedPrefix(
  previous: Layout['sequence'],
  current: Layout['sequence'],
  alive = Number.POSITIVE_INFINITY,
): { previousTokens: number; currentTokens: number } {
  return boundedMatch(matchProfile(previous, current), alive);
}

export function layoutFor(
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
  // A subagent call's instruction comes after everything its parent sent: never part of a prefix.
  trailingTokens += sum(request.forkTask ?? []);
  const next = requests[index + 1];
  const replyPrefix = `t${request.turn}/s${request.step}/reply/`;
  const inSlot = (id: string) => id.startsWith(replyPrefix) && (request.slotReply?.includes(id) ?? true);
  const reply = next ? [...next.earlierHistory, ...next.turnHistory].filter((unit) => inSlot(unit.id)) : [];
  const sequenceTokens = sum(sequence);
  return { sequence, sequenceTokens, trailingTokens, reply, slotTokens: sequenceTokens + sum(reply) };
}

export function staticUnits(
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

export function sum(units: readonly HindsightUnit[]): number {
  let total = 0;
  for (const unit of units) total += unit.tokens;
  return total;
}
