import { sha256 } from '../../model/hash.js';
import type { TailScopePricing } from '../../session/choose-tail-scope.js';
import { stableText } from './plan-prompt-breakpoints.js';
import type { MiddlewareCallParams, PromptPart } from './prompt-view.js';
import { openerKeys, planTurnTail, type TailItem, type TurnTailPlan, type TurnTailState } from './turn-tail.js';

/**
 * A user message's identity for the turn tail: its content without cache markers (which a
 * recipe or Cachet moves between calls), so the same message hashes the same at every call.
 */
export function contentKey(content: unknown): string {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  const bare = Array.isArray(blocks)
    ? blocks.map((block) => {
        if (typeof block !== 'object' || block === null) return block;
        const { cache_control: _wire, providerOptions: _options, ...rest } = block as Record<string, unknown>;
        return rest;
      })
    : blocks;
  return sha256(stableText(bare)).slice(0, 32);
}

/**
 * Opener identities of a list of messages: for each message that opens a turn, its key
 * (`openerKeys`); null for every other message.
 */
export function openerKeysOf<M>(
  messages: readonly M[],
  opensTurn: (message: M) => boolean,
  content: (message: M) => unknown,
): Array<string | null> {
  const openers = messages.flatMap((message, index) => (opensTurn(message) ? [index] : []));
  const keys = openerKeys(openers.map((index) => contentKey(content(messages[index] as M))));
  const result: Array<string | null> = messages.map(() => null);
  openers.forEach((messageIndex, order) => {
    result[messageIndex] = keys[order] ?? null;
  });
  return result;
}

/** The AI SDK prompt with each turn's persisted tail texts appended to the user message that opened it. */
export function withPersistedTail(
  params: MiddlewareCallParams,
  keys: ReadonlyArray<string | null>,
  persisted: TurnTailPlan['persisted'],
): MiddlewareCallParams {
  if (persisted.size === 0) return params;
  let changed = false;
  const prompt = params.prompt.map((message, index) => {
    const key = keys[index];
    const texts = key ? persisted.get(key) : undefined;
    if (!texts || message.role !== 'user') return message;
    changed = true;
    const content: PromptPart[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return { ...message, content: [...content, ...texts.map((text): PromptPart => ({ type: 'text', text }))] };
  });
  return changed ? { ...params, prompt } : params;
}

/**
 * The scoped tail of one call over any library's message list: opener identities, then
 * `planTurnTail` on the conversation's state. The caller appends `plan.persisted` texts to the
 * openers (by `keys`) and sends `plan.requestTexts` after the history.
 */
export function scopeTail<M>(input: {
  messages: readonly M[];
  opensTurn: (message: M) => boolean;
  content: (message: M) => unknown;
  state: TurnTailState;
  step: number;
  items: readonly TailItem[];
  countTokens: (text: string) => number;
  pricing: TailScopePricing;
}): { keys: Array<string | null>; plan: TurnTailPlan } {
  const keys = openerKeysOf(input.messages, input.opensTurn, input.content);
  const opener = keys.findLast((key) => key !== null) ?? null;
  const plan = planTurnTail({
    state: input.state,
    opener,
    step: input.step,
    items: input.items,
    countTokens: input.countTokens,
    pricing: input.pricing,
  });
  return { keys, plan };
}
