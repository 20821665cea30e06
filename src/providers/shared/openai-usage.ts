import { z } from 'zod';
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
}

/**
 * Normalized `Usage` from OpenAI-shaped counts: the uncached share is what remains of the input
 * after reads and writes. OpenAI has one cache lifetime, reported as 5-minute writes.
 *
 * @example
 * openAIUsage({ input: 2048, cacheRead: 1920, output: 10 }, raw).uncachedInputTokens // 128
 */
export function openAIUsage(counts: OpenAIUsageCounts, raw: unknown): Usage {
  const cacheReadTokens = counts.cacheRead ?? 0;
  const cacheWriteTokens = counts.cacheWrite ?? 0;
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
