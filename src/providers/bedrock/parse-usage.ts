import { z } from 'zod';
import type { Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { pickUsageObject } from '../shared/pick-usage-object.js';

const count = z.number().int().nonnegative();

/** `TokenUsage` of a Converse response (or of a ConverseStream `metadata` event). */
export const bedrockUsageSchema = z
  .object({
    inputTokens: count.nullish(),
    outputTokens: count.nullish(),
    totalTokens: count.nullish(),
    cacheReadInputTokens: count.nullish(),
    cacheWriteInputTokens: count.nullish(),
    cacheDetails: z.array(z.object({ ttl: z.string().nullish(), inputTokens: count.nullish() }).passthrough()).nullish(),
  })
  .passthrough();

/**
 * Normalize Bedrock Converse usage. Accepts a `ConverseCommandOutput` (`{ usage }`), a
 * ConverseStream metadata event (`{ metadata: { usage } }`) or the usage object itself.
 *
 * `inputTokens` counts only the tokens neither read from nor written to the cache (as on the
 * Messages API: `totalTokens` = input + output + read + write). Writes are split by TTL from
 * `cacheDetails`; without it every write counts as 5-minute, and any remainder the breakdown
 * does not cover counts as 5-minute too.
 *
 * @example
 * parseBedrockUsage({ usage: { inputTokens: 12, outputTokens: 40, cacheReadInputTokens: 5000 } }).cacheReadTokens; // 5000
 */
export function parseBedrockUsage(response: unknown): Usage {
  const raw = pickUsage(response);
  const usage = parseWith(bedrockUsageSchema, raw, 'usage');
  const written = usage.cacheWriteInputTokens ?? 0;
  let write1h = 0;
  let write5m = written;
  if (usage.cacheDetails && usage.cacheDetails.length > 0) {
    write1h = usage.cacheDetails
      .filter((detail) => detail.ttl === '1h')
      .reduce((sum, detail) => sum + (detail.inputTokens ?? 0), 0);
    const reported5m = usage.cacheDetails
      .filter((detail) => detail.ttl !== '1h')
      .reduce((sum, detail) => sum + (detail.inputTokens ?? 0), 0);
    write5m = Math.max(reported5m, written - write1h);
  }
  return {
    uncachedInputTokens: usage.inputTokens ?? 0,
    cacheReadTokens: usage.cacheReadInputTokens ?? 0,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    outputTokens: usage.outputTokens ?? 0,
    reasoningTokens: 0,
    raw,
  };
}

function pickUsage(response: unknown): unknown {
  return pickUsageObject(response, {
    usageKey: 'usage',
    envelopeKey: 'metadata',
    countKeys: ['inputTokens', 'outputTokens'],
    responseExpected: 'a Converse response, a ConverseStream metadata event or a usage object',
    usageExpected: 'a TokenUsage object with inputTokens / outputTokens',
  });
}

/** Usage fields the parser reads, for the capabilities record. */
export const BEDROCK_USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'cacheReadInputTokens',
  'cacheWriteInputTokens',
  'cacheDetails[].ttl',
  'cacheDetails[].inputTokens',
] as const;
