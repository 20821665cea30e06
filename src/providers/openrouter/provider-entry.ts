import { claudeModelId } from '../anthropic/model-id.js';
import { DEFAULT_CLAUDE_MODEL } from '../anthropic/provider-entry.js';
import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { openRouterAdapter } from './index.js';
import { resolveOpenRouterRoute } from './models.js';

/** OpenRouter's own reasoning field shapes the prefix on routes that are not Anthropic's. */
const NON_ANTHROPIC_PREFIX_PARAMS = ['reasoning'] as const;

/** OpenRouter (Chat Completions shape) in the provider registry: each route follows its upstream's rules. */
export const openRouterProvider: ProviderEntry = {
  id: 'openrouter',
  wire: 'chat-completions',
  adapter: registryAdapter(openRouterAdapter),
  prices: [],
  acceptsHistoryTtl: true,
  // OpenRouter documents no pass-through of `defer_loading` / `tool_reference` (checked 2026-11-23).
  defersToolLoading: false,
  callerMarkers: 'chat-cache-control',
  route: (model) => {
    const route = resolveOpenRouterRoute(model);
    const upstreamModel =
      route.cacheRules === 'anthropic' ? claudeModelId(model) : model.includes('/') ? model.slice(model.indexOf('/') + 1) : model;
    return { rules: route.cacheRules, upstreamModel, priceVendor: route.priceVendor };
  },
  prefixParams: (model) => (resolveOpenRouterRoute(model).cacheRules === 'anthropic' ? [] : NON_ANTHROPIC_PREFIX_PARAMS),
  counterpartModel: (model) => {
    if (model.startsWith('anthropic/')) return model;
    const claude = claudeModelId(model);
    // OpenRouter spells Claude versions with dots: claude-sonnet-4-5 → claude-sonnet-4.5.
    return `anthropic/${claude.startsWith('claude-') ? claude.replace(/-(\d+)-(\d+)$/, '-$1.$2') : DEFAULT_CLAUDE_MODEL}`;
  },
  planOptions: ({ historyTtl, deferredToolPlacement, finalRequest }) => ({
    ...(historyTtl ? { cacheTtl: historyTtl } : {}),
    ...(finalRequest ? { finalRequest } : {}),
    ...(deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
  }),
  chatTemplate: () => 'other',
};
