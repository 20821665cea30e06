import type { LanguageModelUsage, ProviderMetadata } from 'ai';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import { parseAnthropicUsage } from '../../providers/anthropic/parse-usage.js';

/** What `usageFromAiSdk` reads: a `generateText` result, a `StepResult`, or an `onFinish` event. */
export interface AiSdkUsageSource {
  usage: LanguageModelUsage;
  providerMetadata?: ProviderMetadata | undefined;
}

/**
 * Cachet `Usage` from an AI SDK result. For Anthropic the raw Messages usage the provider reports
 * in `providerMetadata.anthropic.usage` is parsed by Cachet's Anthropic parser, so cache writes
 * are split by TTL (`cache_creation`); otherwise the AI SDK's normalized fields are used
 * (`inputTokenDetails.noCacheTokens` / `cacheReadTokens` / `cacheWriteTokens`, falling back to
 * `cachedInputTokens`), with writes counted as 5-minute writes.
 *
 * Pass one step (`result.steps[i]` or the result of a one-step call): `result.totalUsage` of a
 * multi-step call sums requests that each had their own cache hits.
 *
 * @example
 * const result = await generateText({ model, ...toAiSdkCall(request, { provider: 'anthropic' }) });
 * recordUsage(session, usageFromAiSdk(result, 'anthropic'), { turn: 1, step: 0, price: pricedBy('anthropic') });
 */
export function usageFromAiSdk(result: AiSdkUsageSource, provider: 'anthropic' | 'openai' | (string & {})): Usage {
  if (typeof result !== 'object' || result === null || typeof result.usage !== 'object' || result.usage === null) {
    throw new ValidationError('result.usage', 'an AI SDK result with usage');
  }
  if (provider === 'anthropic') {
    const raw = result.providerMetadata?.anthropic?.usage ?? result.usage.raw;
    if (typeof raw === 'object' && raw !== null) return parseAnthropicUsage(raw);
  }
  return fromNormalizedUsage(result.usage);
}

function fromNormalizedUsage(usage: LanguageModelUsage): Usage {
  const details = usage.inputTokenDetails;
  const cacheRead = details?.cacheReadTokens ?? usage.cachedInputTokens ?? 0;
  const cacheWrite = details?.cacheWriteTokens ?? 0;
  const uncached = details?.noCacheTokens ?? Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite);
  return {
    uncachedInputTokens: uncached,
    cacheReadTokens: cacheRead,
    cacheWrite5mTokens: cacheWrite,
    cacheWrite1hTokens: 0,
    outputTokens: usage.outputTokens ?? 0,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens ?? 0,
    raw: usage.raw ?? usage,
  };
}
