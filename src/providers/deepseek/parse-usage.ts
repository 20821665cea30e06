import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';

const count = z.number().int().nonnegative();

/** Fields of DeepSeek's usage payload the parser reads. */
export const DEEPSEEK_USAGE_FIELDS = [
  'usage.prompt_cache_hit_tokens',
  'usage.prompt_cache_miss_tokens',
  'usage.completion_tokens',
  'usage.completion_tokens_details.reasoning_tokens',
] as const;

/** The `usage` object of a DeepSeek chat completion. */
export const deepSeekUsageSchema = z
  .object({
    prompt_tokens: count.nullish(),
    completion_tokens: count.nullish(),
    prompt_cache_hit_tokens: count.nullish(),
    prompt_cache_miss_tokens: count.nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: count.nullish() }).passthrough().nullish(),
  })
  .passthrough();

/**
 * Normalize DeepSeek usage: hits are `prompt_cache_hit_tokens`, everything else of the prompt
 * is uncached (`prompt_cache_miss_tokens`, or the prompt less the hits). DeepSeek bills no
 * cache writes.
 *
 * @example
 * parseDeepSeekUsage({ usage: { prompt_tokens: 900, prompt_cache_hit_tokens: 768, prompt_cache_miss_tokens: 132, completion_tokens: 5 } }).cacheReadTokens; // 768
 */
export function parseDeepSeekUsage(response: unknown): Usage {
  if (typeof response !== 'object' || response === null)
    throw new ValidationError('response', 'a chat completion or its usage object');
  const record = response as Record<string, unknown>;
  const raw = typeof record.usage === 'object' && record.usage !== null ? record.usage : record;
  const usage = parseWith(deepSeekUsageSchema, raw, 'usage');
  const hits = usage.prompt_cache_hit_tokens ?? 0;
  const misses = usage.prompt_cache_miss_tokens ?? Math.max(0, (usage.prompt_tokens ?? 0) - hits);
  return {
    uncachedInputTokens: misses,
    cacheReadTokens: hits,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: usage.completion_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    raw,
  };
}
