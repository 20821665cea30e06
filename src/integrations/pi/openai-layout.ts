import { wireHistoryTokens } from '../../cache/break/volatile-moved-payload.js';
import { ValidationError } from '../../model/errors.js';
import { tailPricingFor } from '../../runtime/tail-pricing.js';
import type { ConversationState } from '../shared/conversation-store.js';
import { acceptsLateInstruction } from '../shared/late-instruction.js';
import { scopeTail } from '../shared/persisted-tail.js';
import type { TailItem } from '../shared/turn-tail.js';
import { moveAndPublishVolatile, type VolatileCallContext, type VolatileOption } from '../shared/volatile-auto.js';
import { contentParts, opensWireTurn, type WireMessage, withPersistedWireTail } from './wire-turns.js';

/** The two OpenAI wire shapes pi-ai sends: Chat Completions (`messages`) and Responses (`input`). */
const SHAPES = {
  'openai-completions': { items: 'messages', textPart: 'text', pricing: 'openai-chat' },
  'openai-responses': { items: 'input', textPart: 'input_text', pricing: 'openai-responses' },
} as const;

export type PiOpenAIApi = keyof typeof SHAPES;

export function isPiOpenAIApi(api: string): api is PiOpenAIApi {
  return Object.hasOwn(SHAPES, api);
}

const INSTRUCTION_ROLES = new Set(['system', 'developer']);

const isInstruction = (message: WireMessage) =>
  INSTRUCTION_ROLES.has(String(message?.role)) && typeof message?.content === 'string';

export interface OpenAILayoutContext extends Omit<VolatileCallContext, 'state'> {
  api: PiOpenAIApi;
  /** pi's `model.provider`: decides the role of a tail sent after tool results. */
  provider: string;
  model: string;
  items: TailItem[];
  volatile: VolatileOption;
  state: ConversationState;
}

/**
 * An OpenAI payload laid out for its prefix cache: the conversation's cache key; with
 * `volatile: 'auto'`, the per-turn paragraphs of the leading system (or developer) message moved
 * into a turn-scoped tail; turn-scoped tail texts kept in the user message that opened the turn;
 * request-scoped texts last — in the final user message, or after tool results as a trailing
 * message in the system prompt's role on OpenAI itself, a user message elsewhere (never between a
 * call and its result). OpenAI caches
 * every prefix by itself, so there are no markers to place.
 */
export function layOutOpenAIPayload(record: Record<string, unknown>, context: OpenAILayoutContext): Record<string, unknown> {
  const shape = SHAPES[context.api];
  const messages = record[shape.items];
  if (!Array.isArray(messages)) throw new ValidationError(`payload.${shape.items}`, 'a list of messages');
  const { items, state, counter, reporter, conversationId } = context;
  const leading = leadingInstructions(messages as WireMessage[]);
  const move =
    context.volatile === 'auto'
      ? moveAndPublishVolatile(
          messages.slice(0, leading).map((message: WireMessage) => message.content),
          () => wireHistoryTokens(messages, counter),
          { ...context, state: state.volatile, counter, reporter, conversationId },
        )
      : null;
  if (move) items.unshift(...move.items);
  const withSystem = move ? withInstructionTexts(messages as WireMessage[], leading, move.texts) : (messages as WireMessage[]);
  const { keys, plan } = scopeTail({
    messages: withSystem,
    opensTurn: opensWireTurn,
    content: (message) => message.content,
    state: state.turnTail,
    step: context.step,
    items,
    countTokens: (text) => counter.countText(text),
    pricing: tailPricingFor(shape.pricing, context.model),
  });
  const persisted = withPersistedWireTail(withSystem, keys, plan.persisted, shape.textPart);
  const laidOut = withRequestTail(persisted, plan.requestTexts, shape.textPart, context);
  return {
    ...record,
    [shape.items]: laidOut,
    prompt_cache_key: record.prompt_cache_key ?? `cachet-${conversationId}`,
  };
}

function leadingInstructions(messages: readonly WireMessage[]): number {
  const count = messages.findIndex((message) => !isInstruction(message));
  return count === -1 ? messages.length : count;
}

/** The leading instruction messages with their texts replaced in order; one left empty is dropped. */
function withInstructionTexts(messages: readonly WireMessage[], leading: number, texts: readonly string[]): WireMessage[] {
  const instructions = messages
    .slice(0, leading)
    .flatMap((message, index) => (texts[index] ? [{ ...message, content: texts[index] }] : []));
  return [...instructions, ...messages.slice(leading)];
}

function withRequestTail(
  messages: WireMessage[],
  texts: readonly string[],
  textPart: 'text' | 'input_text',
  context: OpenAILayoutContext,
): WireMessage[] {
  if (texts.length === 0) return messages;
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    context.reporter.report(
      new ValidationError('tail', 'a payload that does not end with an assistant prefill', 'the request tail was not sent'),
      'tail',
      context.conversationId,
    );
    return messages;
  }
  if (last?.role === 'user') {
    const parts = [...contentParts(last, textPart), ...texts.map((text) => ({ type: textPart, text }))];
    return [...messages.slice(0, -1), { ...last, content: parts }];
  }
  if (!acceptsLateInstruction(context.provider)) {
    return [...messages, { role: 'user', content: texts.map((text) => ({ type: textPart, text })) }];
  }
  const role = messages.find(isInstruction)?.role ?? 'system';
  return [...messages, { role, content: texts.join('\n\n') }];
}
