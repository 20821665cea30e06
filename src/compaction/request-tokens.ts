import type { Message } from '../model/content.js';
import type { CanonicalRequest } from '../model/request.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Tokens each message adds beyond its blocks (role markers, separators); a small constant. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function messageTokens(message: Message, counter: TokenCounter): number {
  let total = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) total += counter.countBlock(block);
  return total;
}

export function messagesTokens(messages: readonly Message[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message, counter);
  return total;
}

/** Token count of each zone of a request and the total the provider will see. */
export interface RequestMeasure {
  /** Tools, system segments and session-static messages. */
  static: number;
  history: number;
  tail: number;
  total: number;
}

/**
 * A request's tokens as the compaction pipeline accounts them: per-message framing included, so
 * planned histories (not yet assembled) and assembled requests are measured the same way.
 */
export function measureRequest(request: CanonicalRequest, counter: TokenCounter): RequestMeasure {
  let staticTokens = 0;
  for (const tool of request.tools) staticTokens += counter.countBlock(tool);
  for (const segment of request.system) staticTokens += counter.countBlock(segment);
  const sessionCount = request.layout.sessionMessageCount;
  staticTokens += messagesTokens(request.messages.slice(0, sessionCount), counter);
  const history = messagesTokens(request.messages.slice(sessionCount), counter);
  let tail = 0;
  for (const item of request.tail.items) tail += counter.countText(item.text) + MESSAGE_OVERHEAD_TOKENS;
  return { static: staticTokens, history, tail, total: staticTokens + history + tail };
}
