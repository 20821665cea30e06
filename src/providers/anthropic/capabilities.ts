import type { Capabilities } from '../adapter.js';
import { ANTHROPIC_MAX_BREAKPOINTS, type AnthropicModelRow, resolveAnthropicModel } from './models.js';
import { ANTHROPIC_USAGE_FIELDS } from './parse-usage.js';

/**
 * What the Anthropic adapter guarantees for a model: explicit markers placed by Cachet, up to
 * four, 5m or 1h TTL, and the model's effective minimum cacheable prefix (0 when the model is
 * not in the table, meaning unknown).
 *
 * @example
 * anthropicCapabilities('claude-sonnet-4-5').minimumPrefixTokens; // 1024
 */
export function anthropicCapabilities(model: string, overrides: readonly AnthropicModelRow[] = []): Capabilities {
  const row = resolveAnthropicModel(model, overrides);
  const known = row.models.length > 0;
  return {
    provider: 'anthropic',
    promptCaching: true,
    cachingMode: 'explicit',
    maxBreakpoints: ANTHROPIC_MAX_BREAKPOINTS,
    ttlOptions: row.ttlOptions,
    minimumPrefixTokens: known ? row.effectiveFloorTokens : 0,
    usageFields: ANTHROPIC_USAGE_FIELDS,
    source: `${row.source}; checked ${row.checked}`,
  };
}
