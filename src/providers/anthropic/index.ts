import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { CanonicalRequest } from '../../model/request.js';
import type { ProviderAdapter } from '../adapter.js';
import { anthropicCapabilities } from './capabilities.js';
import { type AnthropicConversionResult, convertToAnthropic } from './convert-request.js';
import type { AnthropicOptions } from './options.js';
import { parseAnthropicUsage } from './parse-usage.js';

/** A `ProviderAdapter` whose conversions carry the Anthropic metadata (`cacheState`, `floorTokens`, `paddingBlocks`). */
export interface AnthropicAdapter extends ProviderAdapter<MessageCreateParamsNonStreaming, AnthropicOptions> {
  convertRequest(request: CanonicalRequest, options?: AnthropicOptions): AnthropicConversionResult;
}

/**
 * The Anthropic Messages adapter: canonical request to `MessageCreateParamsNonStreaming`, usage
 * to normalized `Usage`, and the capabilities record. Never touches the network.
 *
 * @example
 * const { body, metadata } = anthropicAdapter.convertRequest(assemble(session), { ttl: { global: '1h' } });
 * const message = await new Anthropic().messages.create(body);
 * recordUsage(session, anthropicAdapter.parseUsage(message), { turn: 1, step: 0, price: pricedBy('anthropic') });
 */
export const anthropicAdapter: AnthropicAdapter = {
  id: 'anthropic',
  capabilities: (model) => anthropicCapabilities(model),
  convertRequest: convertToAnthropic,
  parseUsage: parseAnthropicUsage,
};

export type { BreakpointWarning } from '../shared/breakpoint-budget.js';
export { anthropicCapabilities } from './capabilities.js';
export {
  type AnthropicConversionMetadata,
  type AnthropicConversionResult,
  convertRequest,
  convertToAnthropic,
} from './convert-request.js';
export { messagesFromAnthropic } from './messages-from-reply.js';
export {
  ANTHROPIC_CACHE_PRICING,
  ANTHROPIC_LOOKBACK_POSITIONS,
  ANTHROPIC_MAX_BREAKPOINTS,
  ANTHROPIC_MODELS,
  type AnthropicModelRow,
  type AnthropicTtl,
  resolveAnthropicModel,
  UNKNOWN_ANTHROPIC_MODEL,
} from './models.js';
export { OPERATING_GUIDELINES, OPERATING_GUIDELINES_SECTIONS, OPERATING_GUIDELINES_VERSION } from './operating-guidelines.js';
export { type AnthropicOptions, DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS } from './options.js';
export {
  DEFAULT_EXPECTED_REQUESTS,
  globalPrefixTokens,
  type PaddingBlock,
  type PaddingInput,
  type PaddingMode,
  type PaddingPin,
  type PaddingPlan,
  type PaddingSkill,
  pinPadding,
  planPadding,
  planRequestPadding,
  skillPaddingText,
} from './padding.js';
export { ANTHROPIC_USAGE_FIELDS, anthropicUsageSchema, parseAnthropicUsage } from './parse-usage.js';
export {
  type AnthropicCacheEntry,
  type AnthropicCacheState,
  type BreakpointMode,
  type BreakpointPlan,
  type BreakpointPlanInput,
  type BreakpointReason,
  type BreakpointSlot,
  type CallerMarker,
  type PlannedBreakpoint,
  planBreakpoints,
  type ZoneTtls,
} from './place-breakpoints.js';

export type { SlotSequence } from './slot-sequence.js';
export { validateAnthropicBreakpoints } from './validate-breakpoints.js';
