import type { ProviderAdapter } from '../adapter.js';
import { openRouterCapabilities } from './capabilities.js';
import { convertToOpenRouter, type OpenRouterBody, type OpenRouterOptions } from './convert-request.js';
import { parseOpenRouterUsage } from './parse-usage.js';

export { openRouterCapabilities } from './capabilities.js';
export { convertToOpenRouter, type OpenRouterBody, type OpenRouterOptions, type OpenRouterReasoningDetail } from './convert-request.js';
export { OPENROUTER_ROUTES, resolveOpenRouterRoute, type OpenRouterRouteFacts } from './models.js';
export { markCacheControl } from './place-breakpoints.js';
export { parseOpenRouterUsage, type OpenRouterUsage } from './parse-usage.js';

/**
 * OpenRouter adapter (Chat Completions shape, through the official `openai` client).
 *
 * @example
 * const { body } = openRouterAdapter.convertRequest(assemble(session));
 * const completion = await openrouter.chat.completions.create(body);
 * const usage = openRouterAdapter.parseUsage(completion); // includes cacheDiscount
 */
export const openRouterAdapter: ProviderAdapter<OpenRouterBody, OpenRouterOptions> = {
  id: 'openrouter',
  capabilities: (model) => openRouterCapabilities(model),
  convertRequest: (request, options) => convertToOpenRouter(request, options),
  parseUsage: (response) => parseOpenRouterUsage(response),
};
