import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';

/** A token count as OpenAI-shaped APIs report it. */
export const tokenCountSchema = z.number().int().nonnegative();

/**
 * The counts every OpenAI-shaped usage object reports, whatever its field names (Chat
 * Completions `prompt_tokens`, Responses `input_tokens`, ...). `input` counts every input
 * token; reads and writes are parts of it.
 */
export interface OpenAIUsageCounts {
  input: number;
  cacheRead?: number | null;
  cacheWrite?: number | null;
  output: number;
  reasoning?: number | null;
  /** Field paths named in errors; the Chat Completions names when absent. */
  fields?: { input: string; cacheRead: string; cacheWrite: string };
}

const CHAT_FIELDS = {
  input: 'usage.prompt_tokens',
  cacheRead: 'usage.prompt_tokens_details.cached_tokens',
  cacheWrite: 'usage.prompt_tokens_details.cache_write_tokens',
};

/**
 * Normalized `Usage` from OpenAI-shaped counts: the uncached share is what remains of the input
 * after reads and writes. OpenAI has one cache lifetime, reported as 5-minute writes. Reads plus
 * writes larger than the input total are refused (`ValidationError`): the payload contradicts itself.
 *
 * @example
 * openAIUsage({ input: 2048, cacheRead: 1920, output: 10 }, raw).uncachedInputTokens // 128
 */
export function openAIUsage(counts: OpenAIUsageCounts, raw: unknown): Usage {
  const cacheReadTokens = counts.cacheRead ?? 0;
  const cacheWriteTokens = counts.cacheWrite ?? 0;
  // Reads and writes are parts of the input total. A payload whose parts exceed the total
  // contradicts itself; counting it would inflate reads (and savings) many times over, so it
  // is refused like any other malformed usage rather than guessed at.
  if (cacheReadTokens + cacheWriteTokens > counts.input) {
    const fields = counts.fields ?? CHAT_FIELDS;
    const parts = cacheWriteTokens > 0 ? `${fields.cacheRead} + ${fields.cacheWrite}` : fields.cacheRead;
    throw new ValidationError(
      parts,
      `at most ${fields.input} (${counts.input})`,
      `reports ${cacheReadTokens + cacheWriteTokens} cached tokens out of ${counts.input} input tokens; the usage payload contradicts itself`,
    );
  }
  return {
    uncachedInputTokens: Math.max(0, counts.input - cacheReadTokens - cacheWriteTokens),
    cacheReadTokens,
    cacheWrite5mTokens: cacheWriteTokens,
    cacheWrite1hTokens: 0,
    outputTokens: counts.output,
    reasoningTokens: counts.reasoning ?? 0,
    raw,
  };
}

/** The `usage` object of a response, or the value itself when it already is one. */
export function usagePayload(response: unknown): unknown {
  if (typeof response === 'object' && response !== null && 'usage' in response) return (response as { usage: unknown }).usage;
  return response;
}
