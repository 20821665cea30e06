import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import type { ChatMessage } from '../openai-chat/chat-messages.js';

/**
 * Rewrite parallel tool calls for a chat template that takes one call per assistant message
 * (Meta's Llama 3.1–3.3 templates raise "This model only supports single tool-calls at once!",
 * and llama-server answers HTTP 400): an assistant message with N calls becomes N assistant
 * messages of one call each, each followed by its own result. The text of the message stays on
 * the first one; later ones carry `''`. Deterministic, so earlier steps keep their bytes.
 *
 * @example
 * oneToolCallPerMessage([assistant(call_a, call_b), tool(call_a), tool(call_b)], warnings);
 * // [assistant(call_a), tool(call_a), assistant(call_b), tool(call_b)]
 */
export function oneToolCallPerMessage(messages: readonly ChatMessage[], warnings: AdapterWarning[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  let split = 0;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ChatMessage;
    if (message.role !== 'assistant' || !message.tool_calls || message.tool_calls.length < 2) {
      result.push(message);
      continue;
    }
    // The results that answer this message follow it directly (the canonical history keeps them together).
    const results = new Map<string, ChatMessage>();
    let next = index + 1;
    while (next < messages.length && messages[next]?.role === 'tool') {
      const answer = messages[next] as ChatMessage & { tool_call_id: string };
      results.set(answer.tool_call_id, answer);
      next++;
    }
    const { tool_calls: calls, ...rest } = message;
    calls.forEach((call, position) => {
      result.push(position === 0 ? { ...rest, tool_calls: [call] } : { ...rest, content: '', tool_calls: [call] });
      const answer = results.get(call.id);
      if (answer) result.push(answer);
    });
    split += 1;
    index = next - 1;
  }
  if (split > 0) {
    warnings.push(
      adapterWarning(
        'parallel-tool-calls-split',
        `${split} assistant message(s) with parallel tool calls sent as one call per message: the model's chat template takes one call per message`,
      ),
    );
  }
  return result;
}
