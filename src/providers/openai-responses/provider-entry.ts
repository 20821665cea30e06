import { openAIChatProvider } from '../openai-chat/provider-entry.js';
import { type ProviderEntry, registryAdapter } from '../provider-entry.js';
import { openAIResponsesAdapter } from './index.js';

/** OpenAI Responses in the provider registry: Chat Completions' models, rules, prices and planning on another wire. */
export const openAIResponsesProvider: ProviderEntry = {
  ...openAIChatProvider,
  id: 'openai-responses',
  wire: 'responses',
  adapter: registryAdapter(openAIResponsesAdapter),
};
