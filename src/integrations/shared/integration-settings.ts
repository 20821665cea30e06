import { ValidationError } from '../../model/errors.js';
import type { AnthropicTtl } from '../../providers/anthropic/models.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ExistingMarkers } from './plan-prompt-breakpoints.js';

/** The options every drop-in (AI SDK, LangChain, pi) shares, as the caller may give them. */
export interface IntegrationSettingsOptions {
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  existingMarkers?: ExistingMarkers;
  tokenCounter?: TokenCounter;
  clock?: () => number;
}

/** The same options with their defaults applied and checked. */
export interface IntegrationSettings {
  existingMarkers: ExistingMarkers;
  ttl: Record<'global' | 'session' | 'history', AnthropicTtl>;
  counter: TokenCounter;
  clock: () => number;
}

/**
 * Applies the drop-ins' shared defaults: caller markers replaced, every zone on the 5-minute
 * TTL, Anthropic's calibrated estimator, `Date.now`. A marker policy other than `replace` or
 * `keep` (plain JavaScript callers) is a `ValidationError` at construction, not at the first call.
 */
export function resolveIntegrationSettings(options: IntegrationSettingsOptions): IntegrationSettings {
  const existingMarkers = options.existingMarkers ?? 'replace';
  if (existingMarkers !== 'replace' && existingMarkers !== 'keep') {
    throw new ValidationError('options.existingMarkers', '"replace" or "keep"', `got ${JSON.stringify(existingMarkers)}`);
  }
  return {
    existingMarkers,
    ttl: {
      global: options.ttl?.global ?? '5m',
      session: options.ttl?.session ?? '5m',
      history: options.ttl?.history ?? '5m',
    },
    counter: options.tokenCounter ?? anthropicEstimator(),
    clock: options.clock ?? Date.now,
  };
}
