import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import { isRecord } from '../wire/json-helpers.js';
import { detectWireFormat } from '../wire/normalize-wire-body.js';

/** Block types only Anthropic's Messages API has. */
const ANTHROPIC_ONLY_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking']);
/** Message roles only Chat Completions has (Anthropic takes the system prompt at the top level). */
const CHAT_ONLY_ROLES = new Set(['system', 'developer', 'tool']);

/**
 * Why `body` cannot be a request of `format`, or null when it can. Read as the wrong format a
 * body's system prompt or messages are simply not found, and a real change reads as "no cache
 * break": so a body with the marks of another wire API (Responses `input` against a
 * `messages` format, Anthropic's top-level `system` against Chat Completions, ...) is refused
 * with both names instead.
 *
 * @example
 * wireFormatMismatch({ model: 'claude-sonnet-4-5', system: 'x', messages: [] }, 'openai-responses');
 * // '--provider openai-responses does not match this body: ... (it looks like an anthropic body)'
 */
export function wireFormatMismatch(body: unknown, format: ProviderId): string | null {
  if (!isRecord(body)) return null;
  const hasInput = 'input' in body || 'instructions' in body;
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : null;
  const looksLike = () => {
    try {
      return detectWireFormat(body);
    } catch {
      return 'unknown';
    }
  };
  const refuse = (marks: string) =>
    `--provider ${format} does not match this body: ${marks} (it looks like an ${looksLike()} body; drop --provider to detect it)`;
  const wire = providerEntry(format).wire;
  if (wire === 'responses') {
    return !hasInput && messages ? refuse('it has "messages" and no "input" or "instructions"') : null;
  }
  if (hasInput && !messages) return refuse('it has "input" or "instructions" and no "messages", as a Responses API body');
  if (!messages) return null;
  const anthropicBlocks = messages.some(
    (message) =>
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && typeof block.type === 'string' && ANTHROPIC_ONLY_BLOCKS.has(block.type)),
  );
  if (wire === 'anthropic-messages') {
    const chatMarks = messages.some(
      (message) => (typeof message.role === 'string' && CHAT_ONLY_ROLES.has(message.role)) || 'tool_calls' in message,
    );
    return chatMarks && !anthropicBlocks
      ? refuse('it has system, developer or tool messages or tool_calls, as Chat Completions')
      : null;
  }
  if ('system' in body || anthropicBlocks) {
    return refuse('it has a top-level "system" or tool_use / tool_result / thinking blocks, as an Anthropic Messages body');
  }
  return null;
}
