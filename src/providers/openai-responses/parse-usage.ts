import { z } from 'zod';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { tokenCountSchema as count, openAIUsage, usagePayload } from '../shared/openai-usage.js';

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
  return openAIUsage(
    {
      input: usage.input_tokens,
      cacheRead: usage.input_tokens_details?.cached_tokens,
      cacheWrite: usage.input_tokens_details?.cache_write_tokens,
      output: usage.output_tokens,
      reasoning: usage.output_tokens_details?.reasoning_tokens,
      fields: {
        input: 'usage.input_tokens',
        cacheRead: 'usage.input_tokens_details.cached_tokens',
        cacheWrite: 'usage.input_tokens_details.cache_write_tokens',
      },
    },
    raw,
  );
}
