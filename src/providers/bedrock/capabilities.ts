import type { Capabilities } from '../adapter.js';
import { type BedrockModelRow, resolveBedrockModel, UNKNOWN_BEDROCK_MODEL } from './models.js';
import { BEDROCK_USAGE_FIELDS } from './parse-usage.js';

/**
 * What the Bedrock Converse adapter guarantees for a model: explicit `cachePoint` blocks placed
 * by Cachet, up to the model's checkpoint limit, its TTLs, and its minimum tokens per checkpoint
 * (0 for models not in the tables, meaning unknown).
 *
 * @example
 * bedrockCapabilities('us.anthropic.claude-sonnet-4-5-20250929-v1:0').ttlOptions; // ['5m', '1h']
 */
export function bedrockCapabilities(model: string, overrides: readonly BedrockModelRow[] = []): Capabilities {
  const row = resolveBedrockModel(model, overrides);
  const known = row !== UNKNOWN_BEDROCK_MODEL;
  return {
    provider: 'bedrock',
    promptCaching: known,
    cachingMode: 'explicit',
    maxBreakpoints: row.maxCheckpoints,
    ttlOptions: row.ttlOptions,
    minimumPrefixTokens: known ? row.minimumTokensPerCheckpoint : 0,
    usageFields: BEDROCK_USAGE_FIELDS,
    source: `${row.source}; checked ${row.checked}`,
  };
}
