import type { ProviderAdapter } from '../adapter.js';
import { openAIResponsesCapabilities } from './capabilities.js';
import { convertToOpenAIResponses, type OpenAIResponsesBody, type OpenAIResponsesOptions } from './convert-request.js';
import { parseOpenAIResponsesUsage } from './parse-usage.js';

export { openAIResponsesCapabilities } from './capabilities.js';
export { convertToOpenAIResponses, type OpenAIResponsesBody, type OpenAIResponsesOptions } from './convert-request.js';
export { parseOpenAIResponsesUsage, responsesUsageSchema } from './parse-usage.js';
export { reasoningItemFromThinking, thinkingFromReasoningItem } from './reasoning-items.js';

/**
 * OpenAI Responses adapter (stateless: `store: false`, full prefix every request).
 *
 * @example
 * const { body } = openAIResponsesAdapter.convertRequest(assemble(session));
 * const response = await client.responses.create(body);
 * const usage = openAIResponsesAdapter.parseUsage(response);
 */
export const openAIResponsesAdapter: ProviderAdapter<OpenAIResponsesBody, OpenAIResponsesOptions> =
  createOpenAIResponsesAdapter();

/**
 * An OpenAI Responses adapter with default options; options passed to `convertRequest` win.
 *
 * @example
 * const adapter = createOpenAIResponsesAdapter({ reasoningSummary: 'auto' });
 */
export function createOpenAIResponsesAdapter(
  defaults: OpenAIResponsesOptions = {},
): ProviderAdapter<OpenAIResponsesBody, OpenAIResponsesOptions> {
  return {
    id: 'openai-responses',
    capabilities: (model) => openAIResponsesCapabilities(model, defaults.models),
    convertRequest: (request, options) => convertToOpenAIResponses(request, { ...defaults, ...options }),
    parseUsage: (response) => parseOpenAIResponsesUsage(response),
  };
}
export { messagesFromOpenAIResponses } from './messages-from-reply.js';
