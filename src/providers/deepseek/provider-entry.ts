import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { deepSeekAdapter } from './index.js';
import { DEEPSEEK_PRICES } from './prices.js';

/** The counterpart of another provider's model on DeepSeek. */
export const DEFAULT_DEEPSEEK_MODEL = 'deepseek-chat';

/**
 * DeepSeek in the provider registry. Its disk cache hits only whole persisted units, so it has
 * rules of its own (`deepseek`, judged by `createDeepSeekCacheModel`), not OpenAI's
 * longest-common-prefix rules.
 */
export const deepSeekProvider: ProviderEntry = {
  id: 'deepseek',
  wire: 'chat-completions',
  adapter: registryAdapter(deepSeekAdapter),
  prices: DEEPSEEK_PRICES,
  acceptsHistoryTtl: false,
  defersToolLoading: false,
  // Thinking mode answers 400 when a tool-call turn's reasoning_content is missing.
  resendsToolTurnReasoning: true,
  callerMarkers: 'none',
  route: (model) => ({ rules: 'deepseek', upstreamModel: model, priceVendor: 'deepseek' }),
  prefixParams: () => [],
  counterpartModel: (model) => (model.startsWith('deepseek-') ? model : DEFAULT_DEEPSEEK_MODEL),
  planOptions: ({ deferredToolPlacement }) => (deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
  chatTemplate: () => 'other',
};
