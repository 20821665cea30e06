import type { CanonicalRequest } from '../../model/request.js';
import type { ProviderAdapter } from '../adapter.js';
import { openRouterCapabilities } from './capabilities.js';
import {
  convertToOpenRouter,
  type OpenRouterBody,
  type OpenRouterConversionResult,
  type OpenRouterOptions,
} from './convert-request.js';
import { type OpenRouterUsage, parseOpenRouterUsage } from './parse-usage.js';

/** A `ProviderAdapter` whose conversions carry `cacheState` and whose usage carries OpenRouter's money figures. */
export interface OpenRouterAdapter extends ProviderAdapter<OpenRouterBody, OpenRouterOptions> {
  convertRequest(request: CanonicalRequest, options?: OpenRouterOptions): OpenRouterConversionResult;
  parseUsage(response: unknown): OpenRouterUsage;
}

export { openRouterCapabilities } from './capabilities.js';
export {
  convertToOpenRouter,
  type OpenRouterBody,
  type OpenRouterConversionMetadata,
  type OpenRouterConversionResult,
  type OpenRouterOptions,
  type OpenRouterReasoningDetail,
} from './convert-request.js';
export { anthropicModelId, OPENROUTER_ROUTES, type OpenRouterRouteFacts, resolveOpenRouterRoute } from './models.js';
export { type OpenRouterUsage, openRouterUpstream, parseOpenRouterUsage } from './parse-usage.js';
export { type CacheControlPlan, type CacheControlPlanInput, markCacheControl } from './place-breakpoints.js';

/**
 * OpenRouter adapter (Chat Completions shape, through the official `openai` client).
 *
 * @example
 * const { body } = openRouterAdapter.convertRequest(assemble(session));
 * const completion = await openrouter.chat.completions.create(body);
 * const usage = openRouterAdapter.parseUsage(completion); // includes cacheDiscount
 */
export const openRouterAdapter: OpenRouterAdapter = createOpenRouterAdapter();

/**
 * An OpenRouter adapter with default options (route rows, TTL, session key); options passed to
 * `convertRequest` win.
 *
 * @example
 * const adapter = createOpenRouterAdapter({ cacheTtl: '1h' });
 */
export function createOpenRouterAdapter(defaults: OpenRouterOptions = {}): OpenRouterAdapter {
  return {
    id: 'openrouter',
    capabilities: (model) => openRouterCapabilities(model, defaults.routes),
    convertRequest: (request, options) => convertToOpenRouter(request, { ...defaults, ...options }),
    parseUsage: (response) => parseOpenRouterUsage(response),
  };
}

export type { OpenRouterMessage } from './openrouter-message.js';
