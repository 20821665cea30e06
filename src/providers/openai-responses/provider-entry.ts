import type { ProviderAdapter } from '../adapter.js';
import { openAIChatProvider } from '../openai-chat/provider-entry.js';
import type { ProviderEntry } from '../provider-entry.js';
import { openAIResponsesAdapter } from './index.js';

/** OpenAI Responses in the provider registry: Chat Completions' models, rules, prices and planning on another wire. */
export const openAIResponsesProvider: ProviderEntry = {
  ...openAIChatProvider,
  id: 'openai-responses',
  wire: 'responses',
  adapter: openAIResponsesAdapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>,
};
