import { definedPlan, type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { anthropicAdapter } from './index.js';
import { claudeModelId } from './model-id.js';
import { ANTHROPIC_PRICES } from './prices.js';

/** The fallback when another provider's model has no Claude counterpart. */
export const DEFAULT_CLAUDE_MODEL = 'claude-sonnet-5';

/** The Anthropic Messages API in the provider registry. */
export const anthropicProvider: ProviderEntry = {
  id: 'anthropic',
  wire: 'anthropic-messages',
  adapter: registryAdapter(anthropicAdapter),
  prices: ANTHROPIC_PRICES,
  acceptsHistoryTtl: true,
  defersToolLoading: true,
  callerMarkers: 'anthropic-paths',
  route: (model) => ({ rules: 'anthropic', upstreamModel: model, priceVendor: 'anthropic' }),
  prefixParams: () => [],
  counterpartModel: (model) => {
    const claude = claudeModelId(model);
    return claude.startsWith('claude-') ? claude : DEFAULT_CLAUDE_MODEL;
  },
  planOptions: ({ historyTtl, deferredToolPlacement: _placement, retention: _retention, ...rest }) => ({
    ...(historyTtl ? { ttl: { history: historyTtl } } : {}),
    ...definedPlan(rest),
  }),
  chatTemplate: () => 'other',
};
