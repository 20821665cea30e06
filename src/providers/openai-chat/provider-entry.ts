import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { openAIChatAdapter } from './index.js';
import { OPENAI_PRICES } from './prices.js';

/** The counterpart of another provider's model on OpenAI's APIs. */
export const DEFAULT_OPENAI_MODEL = 'gpt-5';

/** OpenAI Chat Completions in the provider registry. */
export const openAIChatProvider: ProviderEntry = {
  id: 'openai-chat',
  wire: 'chat-completions',
  adapter: registryAdapter(openAIChatAdapter),
  prices: OPENAI_PRICES,
  acceptsHistoryTtl: false,
  defersToolLoading: false,
  callerMarkers: 'openai-breakpoints',
  route: (model) => ({ rules: 'openai', upstreamModel: model, priceVendor: 'openai' }),
  prefixParams: () => [],
  counterpartModel: () => DEFAULT_OPENAI_MODEL,
  planOptions: ({ deferredToolPlacement, retention }) => ({
    ...(deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
    ...(retention ? { promptCacheRetention: retention } : {}),
  }),
  chatTemplate: () => 'other',
};
