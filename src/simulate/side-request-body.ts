import type { WireShape } from '../providers/provider-entry.js';

type Body = Record<string, unknown>;

/** The text of a simulated keep-alive ping's own user block (as `keepWarmBody` sends it). */
export const PING_TEXT = '(keep-alive: no reply needed)';

/**
 * A side request on a parent's exact prefix: the parent's wire body byte for byte, `text` added
 * after its last block (so after every breakpoint the parent placed: nothing new is marked, and a
 * one-shot call writes nothing it would not read), and, for a keep-alive ping, an output cap
 * (`max_tokens: 0` on Anthropic and Bedrock, Anthropic's pre-warming). A subagent fork and a
 * ping are the same request with different text. The parent's last message is the user's (a
 * request always ends on one), so the text joins it as one more block and the roles still
 * alternate (Bedrock Converse requires it). Null on wires this simulation cannot fork.
 *
 * @example
 * sideRequestBody(previousBody, 'anthropic-messages', PING_TEXT, { maxTokens: 0 });
 */
export function sideRequestBody(
  parent: unknown,
  wire: WireShape,
  text: string,
  options: { maxTokens?: number } = {},
): Body | null {
  if (typeof parent !== 'object' || parent === null) return null;
  const body = parent as Body;
  switch (wire) {
    case 'anthropic-messages': {
      const messages = withTextAtEnd(body.messages, (content) => [...content, { type: 'text', text }], 'user');
      return messages
        ? { ...body, messages, ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }) }
        : null;
    }
    case 'bedrock-converse': {
      const messages = withTextAtEnd(body.messages, (content) => [...content, { text }], 'user');
      if (!messages) return null;
      const inference = (body.inferenceConfig ?? {}) as Body;
      return {
        ...body,
        messages,
        ...(options.maxTokens === undefined ? {} : { inferenceConfig: { ...inference, maxTokens: options.maxTokens } }),
      };
    }
    case 'chat-completions':
      return Array.isArray(body.messages) ? { ...body, messages: [...body.messages, { role: 'user', content: text }] } : null;
    case 'responses':
      return Array.isArray(body.input)
        ? { ...body, input: [...body.input, { role: 'user', content: [{ type: 'input_text', text }] }] }
        : null;
    case 'gemini-generate-content':
      return Array.isArray(body.contents) ? { ...body, contents: [...body.contents, { role: 'user', parts: [{ text }] }] } : null;
    default:
      return wire satisfies never;
  }
}

/** The messages with `extend` applied to the last one's content, when it is a `role` message. */
function withTextAtEnd(messages: unknown, extend: (content: unknown[]) => unknown[], role: string): unknown[] | null {
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const last = messages.at(-1) as Body;
  if (last.role !== role) return null;
  const content = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  if (!Array.isArray(content)) return null;
  // One copy of the history (a spread of a slice copied it twice, element by element).
  const copy = messages.slice();
  copy[copy.length - 1] = { ...last, content: extend(content) };
  return copy;
}
