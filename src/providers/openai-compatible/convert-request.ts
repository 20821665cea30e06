import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { CanonicalRequest } from '../../model/request.js';
import type { ConversionResult } from '../adapter.js';
import { buildChatMessages, type ChatDialect, type ChatMessage } from '../openai-chat/chat-messages.js';
import { chatSamplingFields, toChatTools } from '../openai-chat/chat-params.js';
import { type DeferredToolPlacement, toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { type CompatResolution, resolveCompat } from './models.js';
import { oneToolCallPerMessage } from './one-tool-call-per-message.js';
import { type CacheHints, cacheHints } from './place-breakpoints.js';
import { toolTurnsAsText } from './tool-turns-as-text.js';

/** The SDK's Chat Completions body plus the local engines' cache hints; assignable to the SDK type. */
export type OpenAICompatibleBody = Omit<ChatCompletionCreateParamsNonStreaming, 'messages'> &
  CacheHints & { messages: ChatMessage[] };

export type OpenAICompatibleOptions = CompatResolution & {
  /** Deferred tools: `append` [default] when loaded, or `upfront` (see `DeferredToolPlacement`). */
  deferredTools?: DeferredToolPlacement;
};

/**
 * Convert a canonical request for an OpenAI-compatible local engine (llama.cpp server, vLLM,
 * SGLang, Ollama). The engine renders the messages with the model's chat template, so the
 * resolved compatibility flags decide everything the template is sensitive to: plain string
 * contents, where the tail goes, `""` instead of `null` for tool-call messages, whether
 * reasoning is sent back, tool turns as text for templates without a tool role, one tool call per
 * message for templates that take no more, and the cache hints.
 *
 * @example
 * const { body } = convertToOpenAICompatible(assemble(session), { server: 'llama.cpp', overrides: { slotCount: 4 } });
 * await new OpenAI({ baseURL: 'http://127.0.0.1:8080/v1', apiKey: 'none' }).chat.completions.create(body);
 */
export function convertToOpenAICompatible(
  request: CanonicalRequest,
  options: OpenAICompatibleOptions = {},
): ConversionResult<OpenAICompatibleBody> {
  const compat = resolveCompat(request.model, options);
  const { flags } = compat;
  const toolTurnsAsTextOnly = flags.toolTurns === 'text';
  const dialect: ChatDialect = {
    systemRole: 'system',
    contentForm: 'string',
    toolCallContent: flags.toolCallContent,
    // With tool turns as text, a tail sent as a user turn after the results merges into their user turn.
    tailInToolLoop: toolTurnsAsTextOnly ? 'trailing-user' : flags.tailInToolLoop,
    tailInTurn: flags.tailInTurn,
    reasoning: flags.reasoning,
  };
  const built = buildChatMessages(request, dialect);
  const warnings = [...built.warnings];
  const oneCallEach = flags.toolCallsPerMessage === 'one' ? oneToolCallPerMessage(built.messages, warnings) : built.messages;
  const messages = toolTurnsAsTextOnly ? toolTurnsAsText(oneCallEach) : oneCallEach;
  const body: OpenAICompatibleBody = { model: request.model, messages };
  if (flags.maxTokensField === 'max_tokens') body.max_tokens = request.params.maxTokens;
  else body.max_completion_tokens = request.params.maxTokens;
  const tools = toolsWithDeferred(request, options.deferredTools ?? 'append');
  if (tools.length > 0) body.tools = toChatTools(tools);
  Object.assign(body, chatSamplingFields(request.params, tools.length > 0, false, warnings));
  Object.assign(body, cacheHints(request.sessionId, flags));
  return { body, metadata: { breakpoints: [], padding: null, warnings } };
}
