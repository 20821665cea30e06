import type { TailScope } from '../../model/request.js';
import { chooseTailScope, type TailScopePricing } from '../../session/choose-tail-scope.js';

/** What a drop-in passes to the caller's tail function, inferred from the call itself. */
export interface TailContext {
  /** Turn number from 1: a user message that is not only tool results starts a turn. */
  turn: number;
  /** Model calls of this turn before this one (0 for the call that answers the user message). */
  step: number;
  conversationId: string;
}

/**
 * One tail item. `scope` as in `Session`: `request` is sent after the cached prefix of every call
 * (re-billed at each tool step); `turn` is written once into the user message that opened the
 * turn and kept there at every later call of the conversation, so later steps and turns read it
 * from the cache; `auto` [default] chooses by cost (`chooseTailScope`). `key` identifies the item
 * across the calls of a turn [its position in the list].
 */
export interface TailItemInput {
  text: string;
  scope?: TailScope;
  key?: string;
}

/** What a tail function may return. */
export type TailValue = string | TailItemInput | ReadonlyArray<string | TailItemInput> | null | undefined;

/** A checked tail item. */
export interface TailItem {
  text: string;
  scope: TailScope;
  key: string;
}

/** Per conversation: the texts each turn persisted and what is needed to choose scopes by cost. */
export interface TurnTailState {
  /** Texts persisted into each turn's opening message, by the opener's identity. */
  persisted: Map<string, string[]>;
  /** The current turn's opener and the keys it decided `turn` for. */
  currentOpener: string | null;
  turnKeys: Set<string>;
  requestCount: number;
  requestsThisTurn: number;
  finishedTurns: number;
  finishedTurnRequests: number;
}

export function createTurnTailState(): TurnTailState {
  return {
    persisted: new Map(),
    currentOpener: null,
    turnKeys: new Set(),
    requestCount: 0,
    requestsThisTurn: 0,
    finishedTurns: 0,
    finishedTurnRequests: 0,
  };
}

export interface ScopeDecision {
  key: string;
  scope: 'request' | 'turn';
  reason: string;
}

export interface TurnTailPlan {
  /** Texts to append to each turn-opening user message, by opener identity (this turn's included). */
  persisted: ReadonlyMap<string, readonly string[]>;
  /** Texts sent after the history of this call only. */
  requestTexts: string[];
  decisions: ScopeDecision[];
}

/**
 * The tail of one call, scoped as `Session` scopes it. At the call that opens a turn (step 0)
 * each item's scope is settled (declared, or `chooseTailScope` on this conversation's learned
 * steps per turn and expected remaining requests); `turn` items are persisted for that turn's
 * opener. At later calls of the turn, items with a key the turn persisted are left out (history
 * already carries them) and the others go as request tail. A turn entered mid-way (the drop-in
 * was added during a tool loop) sends everything as request tail. Mutates `state`.
 */
export function planTurnTail(input: {
  state: TurnTailState;
  /** Identity of the user message that opened the current turn (see `openerKeys`); null when none. */
  opener: string | null;
  step: number;
  items: readonly TailItem[];
  countTokens: (text: string) => number;
  pricing: TailScopePricing;
}): TurnTailPlan {
  const { state, opener, step, items } = input;
  if (opener !== state.currentOpener) {
    if (state.currentOpener !== null && state.requestsThisTurn > 0) {
      state.finishedTurns++;
      state.finishedTurnRequests += state.requestsThisTurn;
    }
    state.currentOpener = opener;
    state.requestsThisTurn = 0;
    state.turnKeys = new Set();
  }
  const decisions: ScopeDecision[] = [];
  const requestTexts: string[] = [];
  const opensTurn = step === 0 && opener !== null && !state.persisted.has(opener);
  if (opensTurn) {
    const stepsPerTurn = state.finishedTurns > 0 ? state.finishedTurnRequests / state.finishedTurns : 1;
    // As Session: the conversation is expected to last about twice the requests made so far.
    const requestsAfterTurn = Math.max(0, state.requestCount - stepsPerTurn);
    const turnTexts: string[] = [];
    for (const item of items) {
      const choice =
        item.scope === 'auto'
          ? chooseTailScope({
              tokens: input.countTokens(item.text),
              expectedStepsPerTurn: stepsPerTurn,
              expectedRequestsAfterTurn: requestsAfterTurn,
              pricing: input.pricing,
            })
          : { scope: item.scope, reason: `declared scope ${item.scope}` };
      decisions.push({ key: item.key, scope: choice.scope, reason: choice.reason });
      if (choice.scope === 'turn') {
        turnTexts.push(item.text);
        state.turnKeys.add(item.key);
      } else requestTexts.push(item.text);
    }
    if (turnTexts.length > 0) state.persisted.set(opener, turnTexts);
  } else {
    for (const item of items) {
      if (opener !== null && state.persisted.has(opener) && state.turnKeys.has(item.key)) continue;
      decisions.push({ key: item.key, scope: 'request', reason: 'after the turn opened: request scope' });
      requestTexts.push(item.text);
    }
  }
  state.requestCount++;
  state.requestsThisTurn++;
  return { persisted: state.persisted, requestTexts, decisions };
}

/**
 * Identity of each turn-opening user message, in order: a hash of its own content with the
 * number of earlier openers of the same content, so a persisted text follows its message even
 * when the host drops older turns, and two "continue" messages stay apart.
 */
export function openerKeys(contentHashes: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return contentHashes.map((hash) => {
    const count = seen.get(hash) ?? 0;
    seen.set(hash, count + 1);
    return `${hash}#${count}`;
  });
}
