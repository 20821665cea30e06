import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { pickUsageObject } from '../shared/pick-usage-object.js';

const count = z.number().int().nonnegative();

/** `usageMetadata` of a generateContent response (or of the last stream chunk). */
export const geminiUsageSchema = z
  .object({
    promptTokenCount: count.nullish(),
    cachedContentTokenCount: count.nullish(),
    candidatesTokenCount: count.nullish(),
    thoughtsTokenCount: count.nullish(),
    toolUsePromptTokenCount: count.nullish(),
    totalTokenCount: count.nullish(),
  })
  .passthrough();

/**
 * Normalize Gemini usage. Accepts a `GenerateContentResponse` (`{ usageMetadata }`) or the
 * usage object itself.
 *
 * `promptTokenCount` includes the cached tokens, so uncached input is the difference. Gemini
 * reports no cache writes: implicit caching writes for free and an explicit cache is paid when
 * it is created and per hour of storage, never per request. Thinking tokens are billed as
 * output and reported apart from the candidates, so output is their sum.
 *
 * @example
 * parseGeminiUsage({ usageMetadata: { promptTokenCount: 5000, cachedContentTokenCount: 4096, candidatesTokenCount: 20 } }).uncachedInputTokens; // 904
 */
export function parseGeminiUsage(response: unknown): Usage {
  const raw = pickUsage(response);
  const usage = parseWith(geminiUsageSchema, raw, 'usageMetadata');
  const prompt = usage.promptTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount ?? 0;
  if (cached > prompt) {
    throw new ValidationError('usageMetadata.cachedContentTokenCount', `at most promptTokenCount (${prompt})`, `got ${cached}`);
  }
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    uncachedInputTokens: prompt - cached,
    cacheReadTokens: cached,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    reasoningTokens: thoughts,
    raw,
  };
}

function pickUsage(response: unknown): unknown {
  return pickUsageObject(response, {
    usageKey: 'usageMetadata',
    countKeys: ['promptTokenCount', 'candidatesTokenCount'],
    responseExpected: 'a generateContent response or a usageMetadata object',
    usageExpected: 'a usageMetadata object with promptTokenCount',
  });
}

/** Usage fields the parser reads, for the capabilities record. */
export const GEMINI_USAGE_FIELDS = [
  'usageMetadata.promptTokenCount',
  'usageMetadata.cachedContentTokenCount',
  'usageMetadata.candidatesTokenCount',
  'usageMetadata.thoughtsTokenCount',
] as const;
