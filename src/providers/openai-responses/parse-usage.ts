import { z } from 'zod';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { usagePayload } from '../openai-chat/parse-usage.js';

const count = z.number().int().nonnegative();

/** `usage` of a Responses API response. `cache_write_tokens` is reported on GPT-5.6 and later. */
export const responsesUsageSchema = z.object({
  input_tokens: count,
  output_tokens: count.default(0),
  input_tokens_details: z.object({ cached_tokens: count.nullish(), cache_write_tokens: count.nullish() }).nullish(),
  output_tokens_details: z.object({ reasoning_tokens: count.nullish() }).nullish(),
});

/**
 * Usage of a Responses API response (the whole response or its `usage`), raw payload kept.
 * `input_tokens` counts every input token; cached reads and cache writes are parts of it.
 *
 * @example
 * parseOpenAIResponsesUsage(response).cacheReadTokens
 */
export function parseOpenAIResponsesUsage(response: unknown): Usage {
  const raw = usagePayload(response);
  const usage = parseWith(responsesUsageSchema, raw, 'usage');
  const cacheReadTokens = usage.input_tokens_details?.cached_tokens ?? 0;
  const cacheWriteTokens = usage.input_tokens_details?.cache_write_tokens ?? 0;
  return {
    uncachedInputTokens: Math.max(0, usage.input_tokens - cacheReadTokens - cacheWriteTokens),
    cacheReadTokens,
    cacheWrite5mTokens: cacheWriteTokens,
    cacheWrite1hTokens: 0,
    outputTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    raw,
  };
}
