import type { ProviderAdapter } from '../adapter.js';
import { openAIChatCapabilities } from './capabilities.js';
import { convertToOpenAIChat, type OpenAIChatBody, type OpenAIRequestOptions } from './convert-request.js';
import { parseOpenAIChatUsage } from './parse-usage.js';

export { openAIChatCapabilities, openAICapabilities } from './capabilities.js';
export { convertToOpenAIChat, resolvePromptCacheKey, type OpenAIChatBody, type OpenAIRequestOptions } from './convert-request.js';
export { OPENAI_MODELS, resolveOpenAIModel, type OpenAIModelFacts } from './models.js';
export { chooseBreakpoints, markOpenAIBreakpoints, OPENAI_BREAKPOINT_WRITES } from './place-breakpoints.js';
export { parseOpenAIChatUsage, normaliseChatUsage, chatUsageSchema } from './parse-usage.js';
export { derivePromptCacheKey } from './prompt-cache-key.js';
export { buildChatMessages, type ChatDialect, type ChatMessage } from './chat-messages.js';

/**
 * OpenAI Chat Completions adapter.
 *
 * @example
 * const { body } = openAIChatAdapter.convertRequest(assemble(session));
 * const completion = await client.chat.completions.create(body);
 * const usage = openAIChatAdapter.parseUsage(completion);
 */
export const openAIChatAdapter: ProviderAdapter<OpenAIChatBody, OpenAIRequestOptions> = {
  id: 'openai-chat',
  capabilities: (model) => openAIChatCapabilities(model),
  convertRequest: (request, options) => convertToOpenAIChat(request, options),
  parseUsage: (response) => parseOpenAIChatUsage(response),
};
