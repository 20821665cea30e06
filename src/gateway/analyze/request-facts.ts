/** Per-request facts the capture analyzer reads: the provider, the reported usage, what is left cached, the miss cause. */

import type { CacheModel, CacheVerdict } from '../../cache/models/cache-verdict.js';
import { roundToIncrement } from '../../cache/models/openai-cache-model.js';
import { anthropicBreakpoints, cacheRulesFor } from '../../cache/wire/cache-rules.js';
import { detectWireFormat, normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import type { CacheBreakCause } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import type { Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { resolveOpenAIModel } from '../../providers/openai-chat/models.js';
import { isProviderId, PROVIDER_IDS, providerEntry, refineDetectedProvider } from '../../providers/registry.js';
import type { CapturedRequest } from './read-capture.js';

/**
 * What the next request can read at best: under Anthropic rules what this one read or wrote;
 * under OpenAI's its whole prompt rounded down to what OpenAI caches (the minimum, then 128-token
 * steps: a growing conversation reads a little less than its previous prompt, and that is no
 * miss); elsewhere its whole prompt.
 */
export function cachedAfter(rules: CacheModel['rules'], verdict: CacheVerdict, reported: Usage | null, model: string): number {
  if (rules === 'openai') return roundToIncrement(verdict.inputTokens, resolveOpenAIModel(model).minimumPrefixTokens);
  if (rules !== 'anthropic') return verdict.inputTokens;
  const usage = reported ?? verdict.usage;
  return usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
}

export function missCauseOf(
  verdict: CacheVerdict,
  body: Record<string, unknown>,
  provider: ProviderId,
): CacheBreakCause | 'no-breakpoint' {
  if (verdict.missCause) return verdict.missCause;
  const normalized = normalizeWireBody(body, provider);
  if (cacheRulesFor(normalized) === 'anthropic' && anthropicBreakpoints(normalized).length === 0) return 'no-breakpoint';
  return 'unknown';
}

export function providerOf(request: CapturedRequest, index: number): ProviderId {
  if (request.provider === undefined) {
    const model = typeof request.body.model === 'string' ? request.body.model : '';
    return refineDetectedProvider(detectWireFormat(request.body), model);
  }
  if (!isProviderId(request.provider)) {
    throw new ValidationError(`requests[${index}].provider`, PROVIDER_IDS.join(', '), `got ${JSON.stringify(request.provider)}`);
  }
  return request.provider;
}

export function reportedUsage(provider: ProviderId, usage: Record<string, unknown>, diagnostics: unknown, index: number): Usage {
  try {
    // Anthropic puts `diagnostics` beside `usage` in the response: parsed together, the usage keeps the server's cause.
    return providerEntry(provider).adapter.parseUsage(diagnostics === undefined ? { usage } : { usage, diagnostics });
  } catch (error) {
    throw new ValidationError(`requests[${index}].usage`, `a ${provider} usage object`, (error as Error).message);
  }
}
