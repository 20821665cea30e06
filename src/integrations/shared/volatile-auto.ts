import { volatileMovedPayload } from '../../cache/break/volatile-moved-payload.js';
import { createVolatileSystemTracker, type VolatileSystemTracker } from '../../cache/break/volatile-system.js';
import type { VolatileMovedPayload } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { HookReporter } from './contained-hooks.js';
import type { MiddlewareCallParams } from './prompt-view.js';
import type { TailItem } from './turn-tail.js';

/**
 * `volatile` option of the drop-ins: `'auto'` moves the per-turn paragraphs of the system prompt
 * (see `createVolatileSystemTracker`) into a turn-scoped tail; `'off'` [default] leaves it alone.
 */
export type VolatileOption = 'auto' | 'off';

/** The option checked at construction (a plain JavaScript caller may pass anything). */
export function volatileOptionOf(value: unknown): VolatileOption {
  if (value === undefined) return 'off';
  if (value === 'auto' || value === 'off') return value;
  throw new ValidationError('options.volatile', '"auto" or "off"', `got ${JSON.stringify(value)}`);
}

/** What one conversation remembers for `volatile: 'auto'`. */
export interface VolatileState {
  tracker: VolatileSystemTracker;
  /** The moved keys of the previous call: the event is published when they change. */
  previousKeys: string;
}

export function createVolatileState(): VolatileState {
  return { tracker: createVolatileSystemTracker(), previousKeys: '' };
}

export interface VolatileMove {
  /** Each system text without its volatile paragraphs ('' when nothing is left). */
  texts: string[];
  /** The moved paragraphs as turn-scoped tail items, in prompt order. */
  items: TailItem[];
  /** The event payload when what moved changed since the previous call; null otherwise. */
  event: Omit<VolatileMovedPayload, 'turn' | 'step'> | null;
}

/**
 * One call's move: the system texts split, the moved paragraphs as turn-scoped tail items, and
 * the `volatile.moved` payload. `historyTokens` estimates the history before this call's new
 * messages (asked only when a moved text changed). Null when nothing moved; a problem (bad
 * system content, a failing counter) is reported and gives null too: the call goes out as built.
 */
export function moveVolatileSystem(input: {
  state: VolatileState;
  texts: readonly unknown[];
  counter: TokenCounter;
  historyTokens: () => number;
  reporter: HookReporter;
  conversationId: string;
}): VolatileMove | null {
  try {
    const texts = input.texts.map((text, index) => {
      if (typeof text !== 'string') throw new ValidationError(`system[${index}]`, 'text', `got ${typeof text}`);
      return text;
    });
    const split = input.state.tracker.split(texts);
    const keys = split.moved.map((entry) => entry.key).join('\n');
    const changedKeys = keys !== input.state.previousKeys;
    input.state.previousKeys = keys;
    if (split.moved.length === 0) return null;
    const items = split.moved.map((entry): TailItem => ({ text: entry.text, scope: 'turn', key: entry.key }));
    return {
      texts: split.texts,
      items,
      event: changedKeys ? volatileMovedPayload(split.moved, texts, input.counter, input.historyTokens) : null,
    };
  } catch (error) {
    input.reporter.report(error, 'volatile', input.conversationId);
    return null;
  }
}

/** Where a drop-in's call moves its volatile system text and publishes the move. */
export interface VolatileCallContext {
  state: VolatileState;
  counter: TokenCounter;
  reporter: HookReporter;
  bus: EventBus | undefined;
  conversationId: string;
  at: number;
  turn: number;
  step: number;
}

/**
 * `volatile: 'auto'` for one call of any drop-in: the system texts split by `moveVolatileSystem`
 * and, when what moved changed, `volatile.moved` published under the conversation id. Null when
 * nothing moved or a problem was reported (the call then goes out as built).
 */
export function moveAndPublishVolatile(
  texts: readonly unknown[],
  historyTokens: () => number,
  context: VolatileCallContext,
): VolatileMove | null {
  const move = moveVolatileSystem({
    state: context.state,
    texts,
    counter: context.counter,
    historyTokens,
    reporter: context.reporter,
    conversationId: context.conversationId,
  });
  if (move?.event && context.bus) {
    context.bus.emit('volatile.moved', context.conversationId, context.at, {
      turn: context.turn,
      step: context.step,
      ...move.event,
    });
  }
  return move;
}

/** The system messages' texts of a prompt view, in order. */
export function viewSystemTexts(view: MiddlewareCallParams): unknown[] {
  return view.prompt.filter((message) => message.role === 'system').map((message) => message.content);
}

/** The view with its system messages' texts replaced, in order; a system message left empty is dropped. */
export function withViewSystemTexts(view: MiddlewareCallParams, texts: readonly string[]): MiddlewareCallParams {
  let index = 0;
  const prompt = view.prompt.flatMap((message) => {
    if (message.role !== 'system') return [message];
    const text = texts[index++] ?? '';
    return text === '' ? [] : [{ ...message, content: text }];
  });
  return { ...view, prompt };
}

/** Estimated tokens of a view's history (text, tool inputs and outputs; images not counted). */
export function viewHistoryTokens(view: MiddlewareCallParams, counter: TokenCounter): number {
  let total = 0;
  for (const message of view.prompt) {
    if (message.role === 'system') continue;
    if (typeof message.content === 'string') total += counter.countText(message.content);
    else
      for (const part of message.content) {
        const text = part.text ?? (part.input === undefined ? (part.output === undefined ? '' : part.output) : part.input);
        total += counter.countText(typeof text === 'string' ? text : JSON.stringify(text));
      }
  }
  return total;
}
