import type { TailItem } from '../model/request.js';
import { renderTail } from './assemble.js';
import { chooseTailScope, type TailScopeChoice, type TailScopePricing } from './choose-tail-scope.js';
import type { Session } from './session.js';

export interface ResolveTurnTailOptions {
  /** The request's time; defaults to the session's clock. */
  now?: number;
  /** Tail items for this request beside the session's tail providers. */
  tail?: readonly TailItem[];
  /** Tokens of a text, for the `auto` decision. */
  countTokens: (text: string) => number;
  /** Multipliers for the `auto` decision (the provider's write and read rates). */
  pricing: TailScopePricing;
}

export interface ScopeDecision {
  kind: TailItem['kind'];
  scope: 'request' | 'turn';
  /** Why: declared, or the cost comparison of `chooseTailScope`. */
  reason: string;
}

export interface ResolvedTurnTail {
  /** Items sent with this request only (what `assemble` receives as `resolvedTail`). */
  items: TailItem[];
  /** Items persisted into the turn's opening message by this call. */
  persisted: TailItem[];
  decisions: ScopeDecision[];
}

/**
 * Render the tail for one request and apply each item's scope. At the turn's first request,
 * turn-scoped items (declared, or `auto` items whose cost favours it) are persisted once into
 * the turn's opening user message (`Session.persistTurnTail`) and become history; at later
 * requests of that turn they are left out, since history already carries the turn's version.
 * When the turn's first request has already gone without them, they fall back to this request.
 * Mutates the session only through `persistTurnTail`.
 *
 * @example
 * const tail = resolveTurnTail(session, { tail: [recall], countTokens, pricing: ANTHROPIC_TAIL_PRICING });
 * const request = assemble(session, { resolvedTail: tail.items });
 */
export function resolveTurnTail(session: Session, options: ResolveTurnTailOptions): ResolvedTurnTail {
  const persistedKinds = session.persistedTailKinds;
  // Later requests of a turn whose opening message holds these kinds read them from history.
  const rendered = renderTail(session, { now: options.now, tail: options.tail }).filter(
    (item) => !persistedKinds.includes(item.kind),
  );
  const shape = session.expectedShape();
  const decisions: ScopeDecision[] = [];
  const turnItems: TailItem[] = [];
  const requestItems: TailItem[] = [];
  for (const item of rendered) {
    const declared = item.scope ?? 'auto';
    let choice: Pick<TailScopeChoice, 'scope' | 'reason'>;
    if (declared === 'auto') {
      choice = chooseTailScope({
        tokens: options.countTokens(item.text),
        expectedStepsPerTurn: shape.stepsPerTurn,
        expectedRequestsAfterTurn: shape.requestsAfterTurn,
        pricing: options.pricing,
      });
    } else choice = { scope: declared, reason: `declared scope ${declared}` };
    decisions.push({ kind: item.kind, scope: choice.scope, reason: choice.reason });
    (choice.scope === 'turn' ? turnItems : requestItems).push(item);
  }
  if (turnItems.length > 0 && session.persistTurnTail(turnItems)) return { items: requestItems, persisted: turnItems, decisions };
  // No turn-scoped item, or the turn's first request went without them: all go with this request.
  return { items: rendered, persisted: [], decisions };
}
