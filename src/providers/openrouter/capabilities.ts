import type { Capabilities } from '../adapter.js';
import { type OpenRouterRouteFacts, resolveOpenRouterRoute } from './models.js';

/**
 * `promptCaching` is always false: which upstream serves a request is decided by OpenRouter
 * after the request is built (load balancing, fallbacks, the sticky route expiring after 10
 * idle minutes), and upstreams differ in whether and how they cache. Cachet still places the
 * markers Anthropic routes need and sends `session_id`; the usage parser reports what happened.
 *
 * @example
 * openRouterCapabilities('anthropic/claude-sonnet-4.5').promptCaching // false
 */
export function openRouterCapabilities(model: string, routes?: readonly OpenRouterRouteFacts[]): Capabilities {
  const route = resolveOpenRouterRoute(model, routes);
  return {
    provider: 'openrouter',
    promptCaching: false,
    cachingMode: route.markers === 'cache_control' ? 'explicit' : 'automatic',
    maxBreakpoints: route.maxMarkers,
    ttlOptions: route.markers === 'cache_control' ? ['5m', '1h'] : [],
    minimumPrefixTokens: 0,
    usageFields: [
      'usage.prompt_tokens',
      'usage.prompt_tokens_details.cached_tokens',
      'usage.prompt_tokens_details.cache_write_tokens',
      'usage.completion_tokens',
      'usage.cost',
      'cache_discount',
    ],
    source: `${route.source} (${route.family}, checked ${route.checked})`,
  };
}
