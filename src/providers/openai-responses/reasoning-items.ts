import type { ResponseReasoningItem } from 'openai/resources/responses/responses';
import type { ThinkingBlock } from '../../model/content.js';

/**
 * A Responses reasoning item travels through Cachet's canonical model as a signed thinking
 * block: `thinking` holds the summary text and `signature` an opaque string that carries the
 * item id and its `encrypted_content`. The signature is what makes the block sendable back; like
 * every signature, it must never be edited.
 */
const SIGNATURE_PREFIX = 'openai-reasoning:v1:';

/**
 * Canonical thinking block for a reasoning item of a Responses output (requested with
 * `include: ['reasoning.encrypted_content']`).
 *
 * @example
 * session.append({ role: 'assistant', content: [thinkingFromReasoningItem(item), ...] });
 */
export function thinkingFromReasoningItem(
  item: Pick<ResponseReasoningItem, 'id' | 'summary' | 'encrypted_content'>,
): ThinkingBlock {
  const block: ThinkingBlock = { type: 'thinking', thinking: item.summary.map((part) => part.text).join('\n\n') };
  if (item.encrypted_content) block.signature = `${SIGNATURE_PREFIX}${item.id}:${item.encrypted_content}`;
  return block;
}

/**
 * The reasoning item to send back for a thinking block, or `null` when the block did not come
 * from the Responses API (unsigned, or signed by another provider): such reasoning cannot be
 * replayed to OpenAI and is left out.
 */
export function reasoningItemFromThinking(block: ThinkingBlock): ResponseReasoningItem | null {
  const signature = block.signature;
  if (!signature?.startsWith(SIGNATURE_PREFIX)) return null;
  const rest = signature.slice(SIGNATURE_PREFIX.length);
  const separator = rest.indexOf(':');
  if (separator <= 0 || separator === rest.length - 1) return null;
  return {
    type: 'reasoning',
    id: rest.slice(0, separator),
    summary: block.thinking.length > 0 ? [{ type: 'summary_text', text: block.thinking }] : [],
    encrypted_content: rest.slice(separator + 1),
  };
}
