import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import type { ProviderCacheMissReason, Usage } from '../../model/usage.js';
import { parseWith } from '../../model/validate.js';
import { pickUsageObject } from '../shared/pick-usage-object.js';

const count = z.number().int().nonnegative();

/** The `usage` object of a Messages API response (or of `message_start` / `message_delta` events). */
export const anthropicUsageSchema = z
  .object({
    input_tokens: count.nullish(),
    output_tokens: count.nullish(),
    cache_creation_input_tokens: count.nullish(),
    cache_read_input_tokens: count.nullish(),
    cache_creation: z
      .object({ ephemeral_5m_input_tokens: count.nullish(), ephemeral_1h_input_tokens: count.nullish() })
      .passthrough()
      .nullish(),
    output_tokens_details: z.object({ thinking_tokens: count.nullish() }).passthrough().nullish(),
  })
  .passthrough();

export type AnthropicUsagePayload = z.infer<typeof anthropicUsageSchema>;

/** `diagnostics` of a Messages API response (SDK types `Diagnostics`, `CacheMissReason`). */
export const anthropicDiagnosticsSchema = z
  .object({
    cache_miss_reason: z.object({ type: z.string(), cache_missed_input_tokens: count.nullish() }).passthrough().nullish(),
  })
  .passthrough();

/**
 * Normalize Anthropic usage. Accepts a whole response (`{ usage }`), a `message_start` event
 * (`{ message: { usage } }`) or the usage object itself; `raw` keeps the usage object as sent.
 *
 * `input_tokens` counts only what came after the last breakpoint, so it maps to uncached
 * input; total input is the sum of uncached, read and written tokens. Writes are split by TTL
 * from `cache_creation`; without that breakdown every write counts as 5-minute, and when the
 * breakdown sums to less than `cache_creation_input_tokens` the rest counts as 5-minute too. A
 * breakdown that sums to more than the total is refused (`ValidationError`).
 *
 * @example
 * parseAnthropicUsage({ usage: { input_tokens: 12, output_tokens: 40, cache_read_input_tokens: 5000 } }).cacheReadTokens; // 5000
 */
export function parseAnthropicUsage(response: unknown): Usage {
  const raw = pickUsage(response);
  const usage = parseWith(anthropicUsageSchema, raw, 'usage');
  const written = usage.cache_creation_input_tokens ?? 0;
  const breakdown = usage.cache_creation;
  let write1h = 0;
  let write5m = written;
  if (breakdown) {
    write1h = breakdown.ephemeral_1h_input_tokens ?? 0;
    const reported5m = breakdown.ephemeral_5m_input_tokens ?? 0;
    // The breakdown splits the total by TTL; parts larger than the total contradict it, and
    // trusting either figure would mis-bill writes, so the payload is refused.
    if (typeof usage.cache_creation_input_tokens === 'number' && reported5m + write1h > written) {
      throw new ValidationError(
        'usage.cache_creation',
        `ephemeral_5m_input_tokens + ephemeral_1h_input_tokens at most cache_creation_input_tokens (${written})`,
        `got ${reported5m} + ${write1h}; the usage payload contradicts itself`,
      );
    }
    write5m = Math.max(reported5m, written - write1h);
  }
  const cacheMissReason = parseAnthropicCacheMissReason(response);
  return {
    uncachedInputTokens: usage.input_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    outputTokens: usage.output_tokens ?? 0,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
    raw,
    ...(cacheMissReason === undefined ? {} : { cacheMissReason }),
  };
}

/**
 * The server's cache-miss reason from a response or a `message_start` event: undefined when the
 * response carries no `diagnostics` (not requested), null when it does but names no miss.
 *
 * @example
 * parseAnthropicCacheMissReason({ diagnostics: { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 4096 } } })
 * // { type: 'system_changed', missedTokens: 4096 }
 */
export function parseAnthropicCacheMissReason(response: unknown): ProviderCacheMissReason | null | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const record = response as Record<string, unknown>;
  const message = record.message as Record<string, unknown> | undefined;
  const raw =
    'diagnostics' in record
      ? record.diagnostics
      : typeof message === 'object' && message !== null
        ? message.diagnostics
        : undefined;
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  const diagnostics = parseWith(anthropicDiagnosticsSchema, raw, 'diagnostics');
  const reason = diagnostics.cache_miss_reason;
  if (!reason) return null;
  return { type: reason.type, missedTokens: reason.cache_missed_input_tokens ?? null };
}

function pickUsage(response: unknown): unknown {
  return pickUsageObject(response, {
    usageKey: 'usage',
    envelopeKey: 'message',
    countKeys: ['input_tokens', 'output_tokens'],
    responseExpected: 'a Messages API response or usage object',
    usageExpected: 'a usage object with input_tokens / output_tokens',
  });
}

/** Usage fields the parser reads, for the capabilities record. */
export const ANTHROPIC_USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'cache_creation.ephemeral_5m_input_tokens',
  'cache_creation.ephemeral_1h_input_tokens',
  'output_tokens_details.thinking_tokens',
] as const;
