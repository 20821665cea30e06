import type { Capabilities } from '../adapter.js';
import { type DeepSeekModelRow, resolveDeepSeekModel } from './models.js';
import { DEEPSEEK_USAGE_FIELDS } from './parse-usage.js';

/**
 * What the DeepSeek adapter can promise for a model: caching is automatic and on for every
 * request, with no markers and no TTL to choose; no minimum prefix is documented.
 *
 * @example
 * deepSeekCapabilities('deepseek-chat').cachingMode; // 'automatic'
 */
export function deepSeekCapabilities(model: string, overrides: readonly DeepSeekModelRow[] = []): Capabilities {
  const row = resolveDeepSeekModel(model, overrides);
  return {
    provider: 'deepseek',
    promptCaching: true,
    cachingMode: 'automatic',
    maxBreakpoints: 0,
    ttlOptions: [],
    minimumPrefixTokens: 0,
    usageFields: DEEPSEEK_USAGE_FIELDS,
    source: `${row.source}; checked ${row.checked}`,
  };
}
