import type { ProviderAdapter } from '../adapter.js';
import { openAIChatCapabilities } from './capabilities.js';
import { convertToOpenAIChat, type OpenAIChatBody, type OpenAIRequestOptions } from './convert-request.js';
import { parseOpenAIChatUsage } from './parse-usage.js';

export { openAICapabilities, openAIChatCapabilities } from './capabilities.js';
export { buildChatMessages, type ChatDialect, type ChatMessage } from './chat-messages.js';
export { convertToOpenAIChat, type OpenAIChatBody, type OpenAIRequestOptions, resolvePromptCacheKey } from './convert-request.js';
export { OPENAI_MODELS, type OpenAIModelFacts, resolveOpenAIModel } from './models.js';
export { chatUsageSchema, normaliseChatUsage, normalizeChatUsage, parseOpenAIChatUsage } from './parse-usage.js';
export { chooseBreakpoints, markOpenAIBreakpoints, OPENAI_BREAKPOINT_WRITES } from './place-breakpoints.js';
export { derivePromptCacheKey } from './prompt-cache-key.js';

/**
 * OpenAI Chat Completions adapter.
 *
 * @example
 * const { body } = openAIChatAdapter.convertRequest(assemble(session));
 * const completion = await client.chat.completions.create(body);
 * const usage = openAIChatAdapter.parseUsage(completion);
 */
export const openAIChatAdapter: ProviderAdapter<OpenAIChatBody, OpenAIRequestOptions> = createOpenAIChatAdapter();

/**
 * An OpenAI Chat Completions adapter with default options (model rows, retention, cache key...);
 * options passed to `convertRequest` win over them.
 *
 * @example
 * const adapter = createOpenAIChatAdapter({ promptCacheRetention: '24h', models: myRows });
 */
export function createOpenAIChatAdapter(
  defaults: OpenAIRequestOptions = {},
): ProviderAdapter<OpenAIChatBody, OpenAIRequestOptions> {
  return {
    id: 'openai-chat',
    capabilities: (model) => openAIChatCapabilities(model, defaults.models),
    convertRequest: (request, options) => convertToOpenAIChat(request, { ...defaults, ...options }),
    parseUsage: (response) => parseOpenAIChatUsage(response),
  };
}

export type {
  Anchor,
  CacheControlMarker,
  ChatAssistantMessage,
  ChatMessagesResult,
  ChatPart,
  ChatSystemMessage,
  ChatTextPart,
  ChatToolMessage,
  ChatUserMessage,
  WireOrigin,
} from './chat-messages.js';
export { messagesFromOpenAIChat } from './messages-from-reply.js';
export type { ChatUsagePayload } from './parse-usage.js';
export type { ZoneAnchors } from './place-breakpoints.js';
