import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { AssistantMessage } from '../../model/content.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ConversionMetadata, ConversionResult } from '../adapter.js';
import type { AnthropicCacheState, CallerMarker, PlannedBreakpoint } from '../anthropic/place-breakpoints.js';
import {
  buildChatMessages,
  type ChatAssistantMessage,
  type ChatDialect,
  type ChatMessage,
} from '../openai-chat/chat-messages.js';
import { chatSamplingFields, toChatTools } from '../openai-chat/chat-params.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import { type DeferredToolPlacement, toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { type OpenRouterRouteFacts, resolveOpenRouterRoute } from './models.js';
import type { OpenRouterMessage, OpenRouterReasoningDetail } from './openrouter-message.js';
import { markCacheControl } from './place-breakpoints.js';

export type { OpenRouterMessage, OpenRouterReasoningDetail } from './openrouter-message.js';

/**
 * The SDK's Chat Completions body with OpenRouter's extensions: `cache_control` on content
 * parts (Anthropic routes), `session_id` for sticky routing, `reasoning_details` on assistant
 * messages. Still assignable to `ChatCompletionCreateParamsNonStreaming`.
 */
export type OpenRouterBody = Omit<ChatCompletionCreateParamsNonStreaming, 'messages'> & {
  messages: OpenRouterMessage[];
  session_id?: string;
  /** OpenRouter's unified reasoning switch (openrouter.ai/docs/use-cases/reasoning-tokens). */
  reasoning?: { max_tokens?: number; enabled?: boolean };
};

export interface OpenRouterOptions {
  /** Sticky routing key; by default the session id; `null` leaves it out. */
  sessionId?: string | null;
  /** TTL of the `cache_control` markers on Anthropic routes ['5m']. */
  cacheTtl?: '5m' | '1h';
  /**
   * Anthropic routes: the previous request's `metadata.cacheState`, for the lookback guard.
   * `undefined` [default] infers it (the previous request ended before the last assistant
   * message); `null` says there was no previous request whose entries could be read.
   */
  previous?: AnthropicCacheState | null;
  /**
   * Anthropic routes: no request is expected after this one [false]. The history marker stays where
   * the previous request's entry ends (read, not re-written); what follows it goes uncached.
   * Without a live previous entry the history end is marked as usual (`AnthropicOptions.finalRequest`).
   */
  finalRequest?: boolean;
  /** Anthropic routes: caller markers by block path; they take slots first. */
  markers?: readonly CallerMarker[];
  /** Anthropic routes: token estimates for the model's minimum cacheable prefix [chars/4 fallback]. */
  tokenCounter?: TokenCounter;
  /** Route rows checked before the built-in table. */
  routes?: readonly OpenRouterRouteFacts[];
  /** Where the tail goes when the request ends with the user's own message. */
  tailInTurn?: ChatDialect['tailInTurn'];
  /**
   * Deferred tools on a provider that cannot defer loading: `append` [default] (declared when
   * history loads them; each load re-writes the cached prefix once) or `upfront` (all declared
   * from the first request). `chooseDeferredToolPlacement` decides by cost.
   */
  deferredTools?: DeferredToolPlacement;
}

export interface OpenRouterConversionMetadata extends ConversionMetadata {
  breakpoints: PlannedBreakpoint[];
  /** Anthropic routes: pass back as `options.previous` on the session's next request; null elsewhere. */
  cacheState: AnthropicCacheState | null;
}

export interface OpenRouterConversionResult extends ConversionResult<OpenRouterBody> {
  metadata: OpenRouterConversionMetadata;
}

/**
 * Convert a canonical request to an OpenRouter body (Chat Completions shape). Anthropic routes
 * get the Anthropic adapter's breakpoint plan as `cache_control` markers (history end, lookback
 * guard, global and session static ends); every route gets `session_id` so OpenRouter keeps the
 * session on the upstream that holds its cache.
 *
 * @example
 * const { body, metadata } = convertToOpenRouter(assemble(session), { previous: lastState });
 * await new OpenAI({ baseURL: 'https://openrouter.ai/api/v1' }).chat.completions.create(body);
 * lastState = metadata.cacheState;
 */
export function convertToOpenRouter(request: CanonicalRequest, options: OpenRouterOptions = {}): OpenRouterConversionResult {
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
  const plan =
    route.markers === 'cache_control'
      ? markCacheControl({
          request,
          messages: built.messages,
          origins: built.origins,
          maxMarkers: route.maxMarkers,
          ttl: options.cacheTtl ?? '5m',
          counter: options.tokenCounter ?? charsPerTokenCounter(),
          previous: options.previous,
          markers: options.markers ?? [],
          ...(options.finalRequest ? { finalRequest: true } : {}),
        })
      : null;
  if (plan) warnings.push(...plan.warnings);

  const body: OpenRouterBody = { model: request.model, messages: built.messages, max_tokens: request.params.maxTokens };
  const tools = toolsWithDeferred(request, options.deferredTools ?? 'append');
  if (tools.length > 0) body.tools = toChatTools(tools);
  Object.assign(body, chatSamplingFields(request.params, tools.length > 0, false, warnings));
  if (request.params.effort) body.reasoning_effort = request.params.effort;
  const reasoning = reasoningOf(request.params.thinking);
  if (reasoning) body.reasoning = reasoning;
  const sessionId = options.sessionId === undefined ? request.sessionId : options.sessionId;
  if (sessionId !== null) body.session_id = sessionId;
  return {
    body,
    metadata: { breakpoints: plan?.breakpoints ?? [], padding: null, warnings, cacheState: plan?.cacheState ?? null },
  };
}

/**
 * The session's thinking setting as OpenRouter's `reasoning`: a budget is `max_tokens`
 * (Anthropic-style), adaptive turns reasoning on with the upstream's defaults, disabled turns it
 * off (models that reason by default, DeepSeek V4 or GLM, would otherwise bill reasoning tokens).
 */
function reasoningOf(thinking: CanonicalRequest['params']['thinking']): OpenRouterBody['reasoning'] {
  if (!thinking) return undefined;
  if (thinking.type === 'enabled') return { max_tokens: thinking.budgetTokens };
  return { enabled: thinking.type === 'adaptive' };
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
