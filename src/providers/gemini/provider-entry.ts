import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { geminiAdapter } from './index.js';
import { GEMINI_PRICES } from './prices.js';

/** The counterpart of another provider's model on Gemini. */
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

/**
 * Google Gemini in the provider registry. Implicit caching is automatic prefix reuse, so bodies
 * follow the automatic (`openai`) family of rules in the break detector; the Gemini cache model
 * adds the per-model minimum, free writes and explicit caches.
 */
export const geminiProvider: ProviderEntry = {
  id: 'gemini',
  wire: 'gemini-generate-content',
  adapter: registryAdapter(geminiAdapter),
  prices: GEMINI_PRICES,
  acceptsHistoryTtl: false,
  // Neither wire has a deferred-loading field: discovered tools are declared up front or appended.
  defersToolLoading: false,
  callerMarkers: 'none',
  route: (model) => ({ rules: 'openai', upstreamModel: model.replace(/^models\//, ''), priceVendor: 'google' }),
  prefixParams: () => [],
  counterpartModel: (model) => (model.replace(/^models\//, '').startsWith('gemini-') ? model : DEFAULT_GEMINI_MODEL),
  planOptions: ({ deferredToolPlacement }) => (deferredToolPlacement ? { deferredTools: deferredToolPlacement } : {}),
  chatTemplate: () => 'other',
};
