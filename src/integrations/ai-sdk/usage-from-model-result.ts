import type { Usage } from '../../model/usage.js';
import { parseAnthropicUsage } from '../../providers/anthropic/parse-usage.js';
import type { ProviderOptionsRecord } from '../shared/prompt-view.js';

/** A provider-level usage record (`LanguageModelV3Usage` / `LanguageModelV4Usage`). */
export interface ModelUsage {
  inputTokens: {
    total?: number | undefined;
    noCache?: number | undefined;
    cacheRead?: number | undefined;
    cacheWrite?: number | undefined;
  };
  outputTokens: { total?: number | undefined; reasoning?: number | undefined };
  raw?: unknown;
}

/**
 * Cachet `Usage` from what a model call returned (the generate result or the stream's `finish`
 * part). For Anthropic the raw Messages usage is parsed so that writes are split by TTL; for
 * the others the provider-level fields are used, writes counted as 5-minute writes.
 */
export function usageFromModelResult(
  usage: ModelUsage,
  providerMetadata: ProviderOptionsRecord | undefined,
  provider: 'anthropic' | 'openai' | 'other',
): Usage {
  if (provider === 'anthropic') {
    const raw = providerMetadata?.anthropic?.usage ?? usage.raw;
    if (typeof raw === 'object' && raw !== null) {
      try {
        return parseAnthropicUsage(raw);
      } catch {
        // Fall through to the normalised fields: a gateway may report another shape.
      }
    }
  }
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const uncached = usage.inputTokens.noCache ?? Math.max(0, (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite);
  return {
    uncachedInputTokens: uncached,
    cacheReadTokens: cacheRead,
    cacheWrite5mTokens: cacheWrite,
    cacheWrite1hTokens: 0,
    outputTokens: usage.outputTokens.total ?? 0,
    reasoningTokens: usage.outputTokens.reasoning ?? 0,
    raw: usage.raw ?? usage,
  };
}
