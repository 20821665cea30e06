import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { validateAnthropicBreakpoints } from '../../providers/anthropic/validate-breakpoints.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Check a Messages API body as the API does before it runs the model, returning the 400
 * message the API would send, or null when it would accept the body: required fields, roles,
 * non-empty text blocks, tool_use/tool_result pairing between neighbouring messages, and the
 * cache markers (at most four, 1h before 5m, none on thinking or empty text).
 */
export function validateAnthropicBody(body: unknown): string | null {
  if (!isRecord(body)) return 'body: expected a JSON object';
  if (typeof body.model !== 'string' || body.model.length === 0) return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 0) return 'max_tokens: Field required';
  // max_tokens: 0 is a pre-warm request (the prefix is cached, nothing generated); Anthropic
  // refuses it with streaming, extended thinking or structured outputs.
  if (body.max_tokens === 0) {
    if (body.stream === true) return 'max_tokens: 0 cannot be combined with stream';
    if (isRecord(body.thinking) && body.thinking.type !== 'disabled') return 'max_tokens: 0 cannot be combined with thinking';
    if (isRecord(body.output_config) && body.output_config.format !== undefined) {
      return 'max_tokens: 0 cannot be combined with structured outputs (output_config.format)';
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (body.tools !== undefined && !Array.isArray(body.tools)) return 'tools: Input should be a valid list';
  const messages = body.messages as unknown[];
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return `messages.${index}: Input should be a valid dictionary`;
    if (message.role !== 'user' && message.role !== 'assistant') {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    if (typeof message.content === 'string') continue;
    if (!Array.isArray(message.content)) return `messages.${index}.content: Input should be a valid list`;
    for (const [blockIndex, block] of message.content.entries()) {
      if (!isRecord(block) || typeof block.type !== 'string') {
        return `messages.${index}.content.${blockIndex}: each content block needs a type`;
      }
      if (block.type === 'text' && block.text === '' && !block.cache_control) {
        return `messages.${index}.content.${blockIndex}: text content blocks must be non-empty`;
      }
    }
  }
  const pairing = checkToolPairing(messages as JsonRecord[]);
  if (pairing) return pairing;
  const markerProblems = validateAnthropicBreakpoints(body as unknown as MessageCreateParamsNonStreaming);
  if (markerProblems.length > 0) return markerProblems[0]!.message;
  return null;
}

function blocksOf(message: JsonRecord | undefined, type: string): JsonRecord[] {
  if (!message || !Array.isArray(message.content)) return [];
  return (message.content as unknown[]).filter((block): block is JsonRecord => isRecord(block) && block.type === type);
}

function checkToolPairing(messages: JsonRecord[]): string | null {
  for (const [index, message] of messages.entries()) {
    const previous = messages[index - 1];
    const results = blocksOf(message, 'tool_result').map((block) => String(block.tool_use_id));
    if (results.length > 0) {
      const offered = new Set(
        previous?.role === 'assistant' ? blocksOf(previous, 'tool_use').map((block) => String(block.id)) : [],
      );
      const unexpected = results.filter((id) => !offered.has(id));
      if (unexpected.length > 0) {
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    if (message.role !== 'assistant') continue;
    const calls = blocksOf(message, 'tool_use').map((block) => String(block.id));
    const next = messages[index + 1];
    if (calls.length === 0 || next === undefined) continue;
    const answered = new Set(blocksOf(next, 'tool_result').map((block) => String(block.tool_use_id)));
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  return null;
}
