import type { Capabilities } from '../adapter.js';
import { type GeminiModelRow, resolveGeminiModel, UNKNOWN_GEMINI_MODEL } from './models.js';
import { GEMINI_USAGE_FIELDS } from './parse-usage.js';

/**
 * What the Gemini adapter guarantees for a model. Implicit caching is automatic but never
 * guaranteed, so `promptCaching` is true only where Cachet can hold an explicit cache (every
 * known model); `cachingMode` says which kind the model does on its own.
 *
 * @example
 * geminiCapabilities('gemini-2.5-flash').cachingMode; // 'automatic'
 */
export function geminiCapabilities(model: string, overrides: readonly GeminiModelRow[] = []): Capabilities {
  const row = resolveGeminiModel(model, overrides);
  const known = row !== UNKNOWN_GEMINI_MODEL;
  return {
    provider: 'gemini',
    promptCaching: known,
    cachingMode: row.implicitCaching ? 'automatic' : 'explicit',
    maxBreakpoints: 0,
    ttlOptions: [],
    minimumPrefixTokens: known ? row.implicitMinimumTokens : 0,
    usageFields: GEMINI_USAGE_FIELDS,
    source: `${row.source}; checked ${row.checked}`,
  };
}
