import type { ProviderAdapter } from '../adapter.js';
import { openRouterCapabilities } from './capabilities.js';
import { convertToOpenRouter, type OpenRouterBody, type OpenRouterOptions } from './convert-request.js';
import { parseOpenRouterUsage } from './parse-usage.js';

export { openRouterCapabilities } from './capabilities.js';
export {
  convertToOpenRouter,
  type OpenRouterBody,
  type OpenRouterOptions,
  type OpenRouterReasoningDetail,
} from './convert-request.js';
export { OPENROUTER_ROUTES, type OpenRouterRouteFacts, resolveOpenRouterRoute } from './models.js';
export { type OpenRouterUsage, parseOpenRouterUsage } from './parse-usage.js';
export { markCacheControl } from './place-breakpoints.js';

/**
 * OpenRouter adapter (Chat Completions shape, through the official `openai` client).
 *
 * @example
 * const { body } = openRouterAdapter.convertRequest(assemble(session));
 * const completion = await openrouter.chat.completions.create(body);
 * const usage = openRouterAdapter.parseUsage(completion); // includes cacheDiscount
 */
export const openRouterAdapter: ProviderAdapter<OpenRouterBody, OpenRouterOptions> = createOpenRouterAdapter();

/**
 * An OpenRouter adapter with default options (route rows, TTL, session key); options passed to
 * `convertRequest` win.
 *
 * @example
 * const adapter = createOpenRouterAdapter({ cacheTtl: '1h' });
 */
export function createOpenRouterAdapter(defaults: OpenRouterOptions = {}): ProviderAdapter<OpenRouterBody, OpenRouterOptions> {
  return {
    id: 'openrouter',
    capabilities: (model) => openRouterCapabilities(model, defaults.routes),
    convertRequest: (request, options) => convertToOpenRouter(request, { ...defaults, ...options }),
    parseUsage: (response) => parseOpenRouterUsage(response),
  };
}
