import { ValidationError } from '../../model/errors.js';
import { assertNever } from '../../model/validate.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { BlockCoreMemo } from './block-core-memo.js';
import { withFormat } from './body-units.js';
import { converseAsMessages } from './converse-as-messages.js';
import { isRecord } from './json-helpers.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';
import { normalizeChatBody } from './normalize-chat.js';
import { normalizeGeminiBody } from './normalize-gemini.js';
import { normalizeResponsesBody } from './normalize-responses.js';
import type { NormalizedWireBody } from './wire-unit.js';

/** Fields only llama.cpp-style servers read, which mark a body as OpenAI-compatible-local. */
const LOCAL_ENGINE_FIELDS = ['cache_prompt', 'id_slot', 'chat_template_kwargs', 'n_predict'] as const;
const ANTHROPIC_BLOCK_TYPES = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

/**
 * Guess which wire API a body was written for, from its shape: `input`/`instructions` →
 * Responses; `modelId` → Bedrock Converse; `contents` → Gemini; top-level `system`, Anthropic block types or a `claude-` model → Anthropic; a
 * `vendor/model` id → OpenRouter; llama.cpp fields or `reasoning_content` → OpenAI-compatible;
 * otherwise Chat Completions.
 *
 * @example
 * detectWireFormat({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }); // 'openai-chat'
 */
export function detectWireFormat(body: unknown): ProviderId {
  if (!isRecord(body)) throw new ValidationError('body', 'a JSON object (a provider request body)');
  if ('input' in body || 'instructions' in body) return 'openai-responses';
  if ('modelId' in body) return 'bedrock';
  if ('contents' in body) return 'gemini';
  if (!Array.isArray(body.messages))
    throw new ValidationError('body.messages', 'an array of messages (or `input` for the Responses API)');
  const model = typeof body.model === 'string' ? body.model : '';
  const messages = body.messages;
  if (model.includes('/')) return 'openrouter';
  // The blocks are looked at only when the body's fields do not settle it: a long history is not walked twice per request.
  if ('system' in body || model.startsWith('claude-') || hasAnthropicBlock(messages)) return 'anthropic';
  const reasoningContent = messages.some((message) => isRecord(message) && 'reasoning_content' in message);
  if (reasoningContent || LOCAL_ENGINE_FIELDS.some((field) => field in body)) return 'openai-compatible';
  return 'openai-chat';
}

function hasAnthropicBlock(messages: readonly unknown[]): boolean {
  return messages.some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && typeof block.type === 'string' && ANTHROPIC_BLOCK_TYPES.has(block.type)),
  );
}

/**
 * Reduce a provider request body to its comparable units in prefix order. `format` defaults
 * to `detectWireFormat(body)`. A `memo` kept for one conversation's successive bodies lets
 * Anthropic-shaped bodies reuse what the previous body's equal blocks gave (`BlockCoreMemo`).
 *
 * @example
 * const normalized = normalizeWireBody(anthropicBody, 'anthropic');
 * normalized.units.map((unit) => unit.path); // ['model', 'tools[0]', 'system[0]', 'tool_choice', ...]
 */
export function normalizeWireBody(
  body: unknown,
  format: ProviderId = detectWireFormat(body),
  memo?: BlockCoreMemo,
): NormalizedWireBody {
  if (!isRecord(body)) throw new ValidationError('body', 'a JSON object (a provider request body)');
  const wire = providerEntry(format).wire;
  switch (wire) {
    case 'anthropic-messages':
      return normalizeAnthropicBody(body, memo);
    case 'chat-completions':
      return normalizeChatBody(body, format);
    case 'responses':
      return normalizeResponsesBody(body);
    case 'bedrock-converse':
      // Judged as the Messages body it stands for; the format keeps the provider for routing.
      return withFormat(normalizeAnthropicBody(converseAsMessages(body), memo), format);
    case 'gemini-generate-content':
      return { ...normalizeGeminiBody(body), format };
    default:
      return assertNever(wire);
  }
}
