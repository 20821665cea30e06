import type { ProviderAdapter } from '../adapter.js';
import { OPENAI_PRICES } from '../openai-chat/prices.js';
import { DEFAULT_OPENAI_MODEL } from '../openai-chat/provider-entry.js';
import type { ProviderEntry } from '../provider-entry.js';
import { openAIResponsesAdapter } from './index.js';

/** OpenAI Responses in the provider registry (same models, rules and prices as Chat Completions). */
export const openAIResponsesProvider: ProviderEntry = {
  id: 'openai-responses',
  wire: 'responses',
  adapter: openAIResponsesAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>,
  prices: OPENAI_PRICES,
  acceptsHistoryTtl: false,
  callerMarkers: 'openai-breakpoints',
  route: (model) => ({ rules: 'openai', upstreamModel: model, priceVendor: 'openai' }),
  prefixParams: () => [],
  counterpartModel: () => DEFAULT_OPENAI_MODEL,
  planOptions: () => ({}),
  chatTemplate: () => 'other',
};
