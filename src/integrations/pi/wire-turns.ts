/** A message of a provider's wire body as the pi hooks read it (Messages API, Chat Completions or Responses). */
export type WireMessage = { role?: unknown; content?: unknown; type?: unknown };

/** A user message that is not only tool results opens a turn. */
export function opensWireTurn(message: WireMessage): boolean {
  if (message?.role !== 'user') return false;
  if (!Array.isArray(message.content)) return true;
  return !message.content.every((block) => (block as { type?: unknown })?.type === 'tool_result');
}

/** What the model produced: an assistant message, or a Responses function call or reasoning item. */
function isModelOutput(message: WireMessage): boolean {
  return message?.role === 'assistant' || message?.type === 'function_call' || message?.type === 'reasoning';
}

/**
 * The payload's turn (user messages that open one) and step (model outputs since the last of
 * them; consecutive Responses output items are one step). A final assistant message is a prefill
 * this call continues, not an earlier step.
 */
export function wireTurnAndStep(messages: readonly WireMessage[]): { turn: number; step: number } {
  const turn = messages.filter(opensWireTurn).length;
  const lastOpener = messages.findLastIndex(opensWireTurn);
  const end = messages.at(-1)?.role === 'assistant' ? messages.length - 1 : messages.length;
  let step = 0;
  for (let index = lastOpener + 1; index < end; index++) {
    if (isModelOutput(messages[index]!) && !isModelOutput(messages[index - 1] ?? {})) step++;
  }
  return { turn, step };
}

/**
 * The messages with each turn's persisted tail texts appended to the user message that opened it,
 * as text parts of the wire's own type (`text`, or Responses' `input_text`).
 */
export function withPersistedWireTail(
  messages: readonly WireMessage[],
  keys: ReadonlyArray<string | null>,
  persisted: ReadonlyMap<string, readonly string[]>,
  textPartType: 'text' | 'input_text' = 'text',
): WireMessage[] {
  return messages.map((message, index) => {
    const key = keys[index];
    const texts = key ? persisted.get(key) : undefined;
    if (!texts) return message;
    return {
      ...message,
      content: [...contentParts(message, textPartType), ...texts.map((text) => ({ type: textPartType, text }))],
    };
  });
}

/** A message's content as a list of parts (a string becomes one text part). */
export function contentParts(message: WireMessage, textPartType: 'text' | 'input_text'): unknown[] {
  return typeof message.content === 'string'
    ? [{ type: textPartType, text: message.content }]
    : Array.isArray(message.content)
      ? (message.content as unknown[])
      : [];
}
