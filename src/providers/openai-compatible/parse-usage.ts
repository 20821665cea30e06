import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { chatUsageSchema } from '../openai-chat/parse-usage.js';
import { tokenCountSchema as count, openAIUsage } from '../shared/openai-usage.js';

const localResponseSchema = z.object({
  usage: chatUsageSchema.nullish(),
  /** llama.cpp server: `cache_n` prompt tokens reused from the slot, `prompt_n` evaluated. */
  timings: z.object({ cache_n: count.nullish(), prompt_n: count.nullish(), predicted_n: count.nullish() }).nullish(),
  /** llama.cpp native /completion. */
  tokens_cached: count.nullish(),
  tokens_evaluated: count.nullish(),
  tokens_predicted: count.nullish(),
  /** Ollama native /api/chat; `prompt_eval_cached_count` from 0.33. */
  prompt_eval_count: count.nullish(),
  prompt_eval_cached_count: count.nullish(),
  eval_count: count.nullish(),
});

/**
 * Usage of a local engine's response, whichever shape it has: llama.cpp `timings.cache_n` /
 * `prompt_n` (preferred: exact), llama.cpp `/completion` `tokens_cached` / `tokens_evaluated`,
 * Ollama's `prompt_eval_count` / `prompt_eval_cached_count`, or the OpenAI-style
 * `usage.prompt_tokens_details.cached_tokens` of vLLM (`--enable-prompt-tokens-details`),
 * SGLang (`--enable-cache-report`) and Ollama's /v1. Local engines bill nothing for writes:
 * evaluated tokens are reported as uncached input.
 *
 * @example
 * parseOpenAICompatibleUsage({ usage: {...}, timings: { cache_n: 900, prompt_n: 124, predicted_n: 40 } }).cacheReadTokens // 900
 */
export function parseOpenAICompatibleUsage(response: unknown): Usage {
  const parsed = parseWith(localResponseSchema, response, 'response');
  const usage = parsed.usage;
  const outputTokens =
    usage?.completion_tokens ?? parsed.timings?.predicted_n ?? parsed.tokens_predicted ?? parsed.eval_count ?? 0;
  const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  const local = (cacheReadTokens: number, uncachedInputTokens: number): Usage => ({
    uncachedInputTokens,
    cacheReadTokens,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens,
    reasoningTokens,
    raw: response,
  });
  const timings = parsed.timings;
  if (timings && typeof timings.cache_n === 'number' && typeof timings.prompt_n === 'number') {
    return local(timings.cache_n, timings.prompt_n);
  }
  if (typeof parsed.tokens_evaluated === 'number') {
    const cached = Math.min(parsed.tokens_cached ?? 0, parsed.tokens_evaluated);
    return local(cached, parsed.tokens_evaluated - cached);
  }
  if (typeof parsed.prompt_eval_count === 'number') {
    const cached = Math.min(parsed.prompt_eval_cached_count ?? 0, parsed.prompt_eval_count);
    return local(cached, parsed.prompt_eval_count - cached);
  }
  if (usage) {
    // Writes are free locally: whatever was not read is uncached input, even if a server reports writes.
    const counts = { input: usage.prompt_tokens, cacheRead: usage.prompt_tokens_details?.cached_tokens, cacheWrite: 0 };
    return openAIUsage({ ...counts, output: outputTokens, reasoning: reasoningTokens }, response);
  }
  throw new ValidationError('response', 'one of usage, timings, tokens_evaluated or prompt_eval_count');
}
