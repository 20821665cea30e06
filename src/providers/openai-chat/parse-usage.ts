import { z } from 'zod';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { tokenCountSchema as count, openAIUsage, usagePayload } from '../shared/openai-usage.js';

/** `usage` of a Chat Completions response (OpenAI, OpenRouter, vLLM, SGLang, llama.cpp, Ollama's /v1). */
export const chatUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count.default(0),
  prompt_tokens_details: z.object({ cached_tokens: count.nullish(), cache_write_tokens: count.nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count.nullish() }).nullish(),
});
export type ChatUsagePayload = z.infer<typeof chatUsageSchema>;

/**
 * Normalize Chat Completions usage. `prompt_tokens` counts every input token; cached reads and
 * cache writes (`cache_write_tokens`, where reported) are parts of it, so the uncached share is
 * what remains.
 */
export function normalizeChatUsage(usage: ChatUsagePayload, raw: unknown): Usage {
  return openAIUsage(
    {
      input: usage.prompt_tokens,
      cacheRead: usage.prompt_tokens_details?.cached_tokens,
      cacheWrite: usage.prompt_tokens_details?.cache_write_tokens,
      output: usage.completion_tokens,
      reasoning: usage.completion_tokens_details?.reasoning_tokens,
    },
    raw,
  );
}

/**
 * Usage of an OpenAI Chat Completions response (the whole response or its `usage`), with the
 * raw payload kept. Throws `ValidationError` naming the field when the shape is wrong.
 *
 * @example
 * parseOpenAIChatUsage({ usage: { prompt_tokens: 2048, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 1920 } } })
 * // { uncachedInputTokens: 128, cacheReadTokens: 1920, ... }
 */
export function parseOpenAIChatUsage(response: unknown): Usage {
  const raw = usagePayload(response);
  return normalizeChatUsage(parseWith(chatUsageSchema, raw, 'usage'), raw);
}

/** @deprecated renamed `normalizeChatUsage`; this alias goes in the next release. */
export const normaliseChatUsage = normalizeChatUsage;
