import type { ChatDialect } from '../openai-chat/chat-messages.js';

/**
 * DeepSeek takes no cache markers: its disk cache persists whole prefix units on its own (at
 * the end of each request's input and output, at prefixes common to several requests) and a
 * later request hits only a unit it contains whole (`DEEPSEEK_MODELS`). What the adapter
 * controls is where those units can end, so the turn tail is kept out of the stable ones:
 * - content goes as text parts, so the user's own text ends its own part and the tail follows
 *   in parts of its own (a string would fuse them into one unit);
 * - the tail goes after the user's text (`end` items) or after the last tool result, never into
 *   a system message: DeepSeek's template hoists system messages to the top, where a tail
 *   would change the first token of every request;
 * - reasoning is sent back on tool-call turns, as thinking mode requires (a 400 otherwise).
 * The strongest placement, turn scope (the tail persisted into the turn's opening message, so
 * the end-of-output unit of each request is a whole prefix of the next), is the session's
 * choice: `tailPricingFor` marks DeepSeek as whole-unit, and `chooseTailScope` picks `turn`.
 */
export const DEEPSEEK_DIALECT: ChatDialect = {
  systemRole: 'system',
  contentForm: 'parts',
  toolCallContent: 'null',
  tailInToolLoop: 'merge-into-last-input',
  tailInTurn: 'merge-into-user',
  reasoning: { send: 'tool-call-turns', field: 'reasoning_content' },
};
