import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { AssistantMessage } from '../../model/content.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { ConversionResult } from '../adapter.js';
import {
  buildChatMessages,
  type ChatAssistantMessage,
  type ChatDialect,
  type ChatMessage,
} from '../openai-chat/chat-messages.js';
import { chatSamplingFields, toChatTools } from '../openai-chat/chat-params.js';
import { type OpenRouterRouteFacts, resolveOpenRouterRoute } from './models.js';
import { markCacheControl } from './place-breakpoints.js';

/** OpenRouter's reasoning replay entries (`reasoning_details` on assistant messages). */
export type OpenRouterReasoningDetail =
  | { type: 'reasoning.text'; text: string; signature?: string; format: 'anthropic-claude-v1' }
  | { type: 'reasoning.encrypted'; data: string; format: 'anthropic-claude-v1' };

export type OpenRouterMessage = ChatMessage | (ChatAssistantMessage & { reasoning_details?: OpenRouterReasoningDetail[] });

/**
 * The SDK's Chat Completions body with OpenRouter's extensions: `cache_control` on content
 * parts (Anthropic routes), `session_id` for sticky routing, `reasoning_details` on assistant
 * messages. Still assignable to `ChatCompletionCreateParamsNonStreaming`.
 */
export type OpenRouterBody = Omit<ChatCompletionCreateParamsNonStreaming, 'messages'> & {
  messages: OpenRouterMessage[];
  session_id?: string;
};

export interface OpenRouterOptions {
  /** Sticky routing key; by default the session id; `null` leaves it out. */
  sessionId?: string | null;
  /** TTL of the `cache_control` markers on Anthropic routes. */
  cacheTtl?: '5m' | '1h';
  /** Route rows checked before the built-in table. */
  routes?: readonly OpenRouterRouteFacts[];
  /** Where the tail goes when the request ends with the user's own message. */
  tailInTurn?: ChatDialect['tailInTurn'];
}

/**
 * Convert a canonical request to an OpenRouter body (Chat Completions shape). Anthropic routes
 * get `cache_control` markers at the end of the global static zone, the session static zone and
 * the persisted history; every route gets `session_id` so OpenRouter keeps the session on the
 * upstream that holds its cache.
 *
 * @example
 * const { body } = convertToOpenRouter(assemble(session));
 * await new OpenAI({ baseURL: 'https://openrouter.ai/api/v1' }).chat.completions.create(body);
 */
export function convertToOpenRouter(
  request: CanonicalRequest,
  options: OpenRouterOptions = {},
): ConversionResult<OpenRouterBody> {
  const route = resolveOpenRouterRoute(request.model, options.routes);
  const dialect: ChatDialect = {
    systemRole: 'system',
    contentForm: 'parts',
    toolCallContent: 'null',
    tailInToolLoop: route.tailInToolLoop,
    tailInTurn: options.tailInTurn ?? 'merge-into-user',
    reasoning: { send: 'never', field: 'reasoning' },
  };
  const built = buildChatMessages(request, dialect);
  const warnings = [...built.warnings];
  if (route.reasoningDetails) attachReasoningDetails(request, built.messages);
  const breakpoints =
    route.markers === 'cache_control' ? markCacheControl(built.anchors, route.maxMarkers, options.cacheTtl ?? '5m') : [];

  const body: OpenRouterBody = { model: request.model, messages: built.messages, max_tokens: request.params.maxTokens };
  if (request.tools.length > 0) body.tools = toChatTools(request.tools);
  Object.assign(body, chatSamplingFields(request.params, request.tools.length > 0, false, warnings));
  if (request.params.effort) body.reasoning_effort = request.params.effort;
  const sessionId = options.sessionId === undefined ? request.sessionId : options.sessionId;
  if (sessionId !== null) body.session_id = sessionId;
  return { body, metadata: { breakpoints, padding: null, warnings } };
}

/**
 * Anthropic requires the thinking of a tool-use turn back unmodified; OpenRouter carries it in
 * `reasoning_details`. Each canonical assistant message maps to exactly one wire assistant
 * message, in order, so they pair up by position.
 */
function attachReasoningDetails(request: CanonicalRequest, messages: ChatMessage[]): void {
  const canonical = request.messages.filter((message): message is AssistantMessage => message.role === 'assistant');
  const wire = messages.filter((message): message is ChatAssistantMessage => message.role === 'assistant');
  canonical.forEach((message, index) => {
    const details: OpenRouterReasoningDetail[] = [];
    for (const block of message.content) {
      if (block.type === 'thinking' && block.signature) {
        details.push({ type: 'reasoning.text', text: block.thinking, signature: block.signature, format: 'anthropic-claude-v1' });
      } else if (block.type === 'redacted_thinking') {
        details.push({ type: 'reasoning.encrypted', data: block.data, format: 'anthropic-claude-v1' });
      }
    }
    const target = wire[index] as (ChatAssistantMessage & { reasoning_details?: OpenRouterReasoningDetail[] }) | undefined;
    if (target && details.length > 0) target.reasoning_details = details;
  });
}
