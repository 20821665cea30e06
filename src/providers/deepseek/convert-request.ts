import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { adapterWarning } from '../../model/adapter-warning.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { ConversionResult } from '../adapter.js';
import { buildChatMessages, type ChatMessage, type ChatPart, type ChatTextPart } from '../openai-chat/chat-messages.js';
import { chatSamplingFields, toChatTools } from '../openai-chat/chat-params.js';
import { type DeferredToolPlacement, toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { deepSeekThinks } from './models.js';
import { DEEPSEEK_DIALECT } from './place-breakpoints.js';

/**
 * The SDK's Chat Completions body as DeepSeek takes it (text parts only, and DeepSeek's own
 * `thinking` switch); assignable to the SDK type.
 */
export type DeepSeekBody = Omit<ChatCompletionCreateParamsNonStreaming, 'messages'> & {
  messages: ChatMessage[];
  thinking?: { type: 'enabled' | 'disabled' };
};

export interface DeepSeekOptions {
  /** Deferred tools: `append` [default] when loaded, or `upfront` (see `DeferredToolPlacement`). */
  deferredTools?: DeferredToolPlacement;
}

/**
 * Convert a canonical request for DeepSeek's Chat Completions API (`https://api.deepseek.com`,
 * the OpenAI SDK with a `baseURL`). The layout is what its whole-unit cache needs
 * (`DEEPSEEK_DIALECT`): text parts, the tail after the stable parts, reasoning sent back on
 * tool-call turns. DeepSeek's chat models take text only: image and file parts are replaced by
 * a text placeholder, with a warning.
 *
 * @example
 * const { body } = convertToDeepSeek(assemble(session));
 * await new OpenAI({ baseURL: 'https://api.deepseek.com', apiKey }).chat.completions.create(body);
 */
export function convertToDeepSeek(request: CanonicalRequest, options: DeepSeekOptions = {}): ConversionResult<DeepSeekBody> {
  const built = buildChatMessages(request, DEEPSEEK_DIALECT);
  const warnings = [...built.warnings];
  built.messages.forEach((message, index) => {
    if (message.role !== 'user' || typeof message.content === 'string') return;
    message.content = message.content.map((part) => textOnly(part, `messages[${index}]`, warnings));
  });
  const body: DeepSeekBody = { model: request.model, messages: built.messages, max_tokens: request.params.maxTokens };
  const tools = toolsWithDeferred(request, options.deferredTools ?? 'append');
  if (tools.length > 0) body.tools = toChatTools(tools);
  Object.assign(body, chatSamplingFields(request.params, tools.length > 0, false, warnings));
  const thinking = request.params.thinking;
  if (thinking) body.thinking = { type: thinking.type === 'disabled' ? 'disabled' : 'enabled' };
  if (thinking?.type === 'enabled') {
    warnings.push(adapterWarning('thinking-budget-dropped', 'params.thinking.budgetTokens dropped: DeepSeek takes no budget'));
  }
  if (deepSeekThinks(body)) requireReasoning(body.messages, tools.length > 0);
  return { body, metadata: { breakpoints: [], padding: null, warnings } };
}

/**
 * In thinking mode DeepSeek answers 400 ("Missing `reasoning_content` field in the assistant
 * message at message index 2") when an assistant message that called tools comes back without
 * `reasoning_content`, and, in a request with tools, any assistant message (DeepSeek V4). A
 * message with no reasoning to send (an empty back-filled thinking block, a turn written by
 * another model, reasoning the thinking cleaner dropped) carries an empty one.
 */
function requireReasoning(messages: ChatMessage[], withTools: boolean): void {
  for (const message of messages) {
    if (message.role !== 'assistant' || message.reasoning_content !== undefined) continue;
    if (withTools || message.tool_calls) message.reasoning_content = '';
  }
}

function textOnly(part: ChatPart, path: string, warnings: ConversionResult<unknown>['metadata']['warnings']): ChatTextPart {
  if (part.type === 'text') return part;
  warnings.push(
    adapterWarning(
      'media-as-text',
      `${path}: DeepSeek chat models take text only; a ${part.type} part was sent as a placeholder`,
      path,
    ),
  );
  return { type: 'text', text: `[${part.type === 'image_url' ? 'image' : 'file'} omitted: DeepSeek takes text only]` };
}
