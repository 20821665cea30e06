import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { CanonicalRequest } from '../../model/request.js';
import type { ProviderAdapter } from '../adapter.js';
import { bedrockCapabilities } from './capabilities.js';
import { type BedrockConversionResult, convertToBedrock } from './convert-request.js';
import type { BedrockOptions } from './options.js';
import { parseBedrockUsage } from './parse-usage.js';

/** A `ProviderAdapter` whose conversions carry the Bedrock metadata (`cacheState`, `model`). */
export interface BedrockAdapter extends ProviderAdapter<ConverseCommandInput, BedrockOptions> {
  convertRequest(request: CanonicalRequest, options?: BedrockOptions): BedrockConversionResult;
}

/**
 * The Amazon Bedrock Converse adapter: canonical request to `ConverseCommandInput` with
 * `cachePoint` blocks, usage to normalized `Usage`, and the capabilities record. Never touches
 * the network.
 *
 * @example
 * const { body } = bedrockAdapter.convertRequest(assemble(session), { ttl: { global: '1h' } });
 * const output = await new BedrockRuntimeClient({ region: 'us-east-1' }).send(new ConverseCommand(body));
 * recordUsage(session, bedrockAdapter.parseUsage(output), { turn: 1, step: 0 });
 */
export const bedrockAdapter: BedrockAdapter = {
  id: 'bedrock',
  capabilities: (model) => bedrockCapabilities(model),
  convertRequest: convertToBedrock,
  parseUsage: parseBedrockUsage,
};

export { bedrockCapabilities } from './capabilities.js';
export { type BedrockConversionMetadata, type BedrockConversionResult, convertToBedrock } from './convert-request.js';
export {
  BEDROCK_CLAUDE_EXCEPTIONS,
  BEDROCK_MODELS,
  type BedrockCacheField,
  type BedrockModelRow,
  type BedrockTtl,
  bedrockBaseModelId,
  isBedrockClaude,
  resolveBedrockModel,
  UNKNOWN_BEDROCK_MODEL,
} from './models.js';
export type { BedrockOptions } from './options.js';
export { BEDROCK_USAGE_FIELDS, bedrockUsageSchema, parseBedrockUsage } from './parse-usage.js';
export type { BedrockCheckpointInput, BedrockCheckpointPlan } from './place-breakpoints.js';
export { type BedrockCheckpointMode, bedrockCachePoint, planBedrockCheckpoints } from './place-breakpoints.js';
export { validateBedrockCheckpoints } from './validate-checkpoints.js';
