/** Price multipliers on the input rate that decide a tail item's scope. */
export interface TailScopePricing {
  /** Uncached input (1 by definition). */
  input: number;
  /** A token written to the cache (Anthropic 5-minute write 1.25; automatic caches 1). */
  write: number;
  /** A token read from the cache (Anthropic 0.1; OpenAI 1 − the family's discount; local engines 0). */
  read: number;
  /**
   * Hits need a whole persisted unit (DeepSeek): every unit a request leaves ends after its
   * tail, so a tail re-sent per request stops the next request from reading the previous one
   * at all. Turn scope is then always chosen.
   */
  wholeUnits?: boolean;
}

export interface TailScopeInput {
  /** Tokens of the tail item. */
  tokens: number;
  /** Requests the turn is expected to make (1 for a reply without tool calls). */
  expectedStepsPerTurn: number;
  /** Requests the session is expected to make after this turn. */
  expectedRequestsAfterTurn: number;
  pricing: TailScopePricing;
}

export interface TailScopeChoice {
  scope: 'request' | 'turn';
  reason: string;
  /** Expected cost of each scope, in input-rate token units. */
  requestCost: number;
  turnCost: number;
}

/** Anthropic's multipliers (5-minute write 1.25×, read 0.1×). */
export const ANTHROPIC_TAIL_PRICING: TailScopePricing = { input: 1, write: 1.25, read: 0.1 };

/**
 * Choose where a tail item lives for one turn. Request scope sends it uncached at every step of
 * the turn: `steps × input × tokens`. Turn scope writes it once with the turn's user message,
 * reads it at every later step of the turn and, since it stays in history, at every request of
 * the rest of the session: `(write + read × (steps − 1) + read × after) × tokens`. Turn scope
 * wins on tool loops (several steps) and loses on single-reply turns or long sessions whose
 * history would carry the item for many requests.
 *
 * @example
 * chooseTailScope({ tokens: 90, expectedStepsPerTurn: 3, expectedRequestsAfterTurn: 8, pricing: ANTHROPIC_TAIL_PRICING }).scope; // 'turn'
 */
export function chooseTailScope(input: TailScopeInput): TailScopeChoice {
  const steps = Math.max(1, input.expectedStepsPerTurn);
  const after = Math.max(0, input.expectedRequestsAfterTurn);
  const { pricing } = input;
  const requestCost = steps * pricing.input * input.tokens;
  const turnCost = (pricing.write + pricing.read * (steps - 1) + pricing.read * after) * input.tokens;
  const figures = `${steps.toFixed(1)} expected steps in the turn, ${after.toFixed(0)} requests after it`;
  if (pricing.wholeUnits) {
    return {
      scope: 'turn',
      requestCost,
      turnCost,
      reason: `${figures}: the cache hits whole persisted units only, and a tail re-sent per request would end every unit the next request could read`,
    };
  }
  if (turnCost < requestCost) {
    return {
      scope: 'turn',
      requestCost,
      turnCost,
      reason: `${figures}: persisting once (${turnCost.toFixed(0)}) is cheaper than re-sending at every step (${requestCost.toFixed(0)})`,
    };
  }
  return {
    scope: 'request',
    requestCost,
    turnCost,
    reason: `${figures}: re-sending at every step (${requestCost.toFixed(0)}) is no dearer than carrying it in history (${turnCost.toFixed(0)})`,
  };
}
