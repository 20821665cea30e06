import type { ChatMessage } from '../openai-chat/chat-messages.js';

/**
 * Rewrite a tool loop for a chat template that knows only `user` and `assistant` turns (Gemma 3:
 * it raises on the `tool` role and on two user turns in a row, and never renders `tool_calls`).
 * Following Gemma's documented function-calling format (ai.google.dev/gemma/docs/capabilities/function-calling),
 * each tool call becomes a fenced `tool_code` block in the assistant's text and each tool result
 * a fenced `tool_output` block in a user turn; consecutive user turns (the results of one step,
 * and a tail sent after them) are merged into one, separated by a blank line. Deterministic: the
 * same history always renders the same text, so the prefix stays stable.
 *
 * @example
 * toolTurnsAsText([{ role: 'tool', tool_call_id: 'c1', content: '42' }]);
 * // [{ role: 'user', content: '```tool_output\n42\n```' }]
 */
export function toolTurnsAsText(messages: readonly ChatMessage[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  for (const message of messages) {
    const rewritten = rewrite(message);
    const previous = result.at(-1);
    if (rewritten.role === 'user' && previous?.role === 'user') {
      previous.content = `${textOf(previous.content)}\n\n${textOf(rewritten.content)}`;
      continue;
    }
    result.push(rewritten);
  }
  return result;
}

function rewrite(message: ChatMessage): ChatMessage {
  if (message.role === 'tool') return { role: 'user', content: fenced('tool_output', textOf(message.content)) };
  if (message.role === 'user') return { ...message };
  if (message.role !== 'assistant' || !message.tool_calls || message.tool_calls.length === 0) return message;
  const { tool_calls: calls, ...rest } = message;
  const text = typeof rest.content === 'string' || Array.isArray(rest.content) ? textOf(rest.content) : '';
  // Arguments are already canonical JSON (the adapter writes them so): the block is stable.
  const blocks = calls.map((call) =>
    fenced('tool_code', `{"name":${JSON.stringify(call.function.name)},"arguments":${call.function.arguments}}`),
  );
  return { ...rest, content: [text, ...blocks].filter((part) => part.length > 0).join('\n\n') };
}

function fenced(kind: 'tool_code' | 'tool_output', text: string): string {
  return `\`\`\`${kind}\n${text}\n\`\`\``;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('\n\n');
}
