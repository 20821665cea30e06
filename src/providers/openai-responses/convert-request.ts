import type {
  EasyInputMessage,
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionCallOutputItem,
  ResponseInputFile,
  ResponseInputImage,
  ResponseInputItem,
  ResponseInputText,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { canonicalize, canonicalJson } from '../../model/canonical-json.js';
import type { AssistantMessage, ToolResultBlock, UserContentBlock } from '../../model/content.js';
import type { CanonicalRequest, ToolChoice, Zone } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';
import type { ConversionResult } from '../adapter.js';
import { type Anchor, mediaUrl } from '../openai-chat/chat-messages.js';
import { toChatToolChoice } from '../openai-chat/chat-params.js';
import { cacheFields, type OpenAIRequestOptions } from '../openai-chat/convert-request.js';
import { resolveOpenAIModel } from '../openai-chat/models.js';
import { markOpenAIBreakpoints, type ZoneAnchors } from '../openai-chat/place-breakpoints.js';
import { toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { reasoningItemFromThinking } from './reasoning-items.js';

/** The wire body: exactly the official SDK's non-streaming request type. */
export type OpenAIResponsesBody = ResponseCreateParamsNonStreaming;

export interface OpenAIResponsesOptions extends OpenAIRequestOptions {
  /**
   * `store` (default `false`): Cachet resends the whole prefix every request, which is what the
   * cache reads; stateless requests also keep reasoning portable through `encrypted_content`.
   */
  store?: boolean;
  /** `reasoning.summary` for reasoning models. */
  reasoningSummary?: 'auto' | 'concise' | 'detailed';
}

type UserPart = ResponseInputText | ResponseInputImage | ResponseInputFile;
type MarkablePart = UserPart | ResponseFunctionCallOutputItem;
type UserMessageItem = ResponseInputItem.Message & { content: UserPart[] };

/**
 * Convert a canonical request to a Responses API body. Prefix order: one system/developer input
 * message (one `input_text` per segment, global then session), tools in the request's order with
 * canonical schemas, then history as input items (messages, `reasoning` items carried back from
 * signed thinking blocks, `function_call`, `function_call_output`). The turn tail comes last: a
 * trailing system/developer message during tool loops, merged into the user's message otherwise.
 * System text is sent as an input message rather than `instructions` so it can carry breakpoints.
 *
 * @example
 * const { body } = convertToOpenAIResponses(assemble(session), { reasoningSummary: 'auto' });
 * const response = await new OpenAI().responses.create(body);
 */
export function convertToOpenAIResponses(
  request: CanonicalRequest,
  options: OpenAIResponsesOptions = {},
): ConversionResult<OpenAIResponsesBody> {
  const facts = resolveOpenAIModel(request.model, options.models);
  const systemRole = options.systemRole ?? (facts.reasoning ? 'developer' : 'system');
  const warnings: AdapterWarning[] = [];
  const input: ResponseInputItem[] = [];
  const anchorable: Array<Anchor<MarkablePart> & { messageIndex: number }> = [];

  if (request.system.length > 0) {
    const content = request.system.map((segment, index) => {
      const part: ResponseInputText = { type: 'input_text', text: segment.text };
      anchorable.push({ part, path: `system[${index}]`, zone: segment.zone, messageIndex: -1 });
      return part;
    });
    input.push({ type: 'message', role: systemRole, content });
  }

  let lastUserMessage: UserMessageItem | undefined;
  request.messages.forEach((message, messageIndex) => {
    const zone: Zone = messageIndex < request.layout.sessionMessageCount ? 'session' : 'history';
    const base = `messages[${messageIndex}]`;
    lastUserMessage = undefined;
    if (message.role === 'assistant') {
      input.push(...assistantItems(message, base, warnings));
      return;
    }
    const parts: UserPart[] = [];
    message.content.forEach((block, blockIndex) => {
      const path = `${base}.content[${blockIndex}]`;
      if (block.type === 'tool_result') {
        input.push(functionCallOutput(block, path, zone, messageIndex, anchorable));
        return;
      }
      const part = userPart(block);
      parts.push(part);
      anchorable.push({ part, path, zone, messageIndex });
    });
    if (parts.length === 0) return;
    lastUserMessage = { type: 'message', role: 'user', content: parts };
    input.push(lastUserMessage);
  });

  // The tail: merged into the user's own message, or a trailing system/developer message.
  const before = request.tail.items.filter((item) => item.position === 'before-user-text').map((item) => item.text);
  const end = request.tail.items.filter((item) => item.position === 'end').map((item) => item.text);
  let unstableMessage: number | null = null;
  if (before.length + end.length > 0) {
    const endsWithUserText = lastUserMessage !== undefined && input.at(-1) === lastUserMessage;
    if (endsWithUserText && lastUserMessage && (options.tailInTurn ?? 'merge-into-user') === 'merge-into-user') {
      lastUserMessage.content = [...before.map(inputText), ...lastUserMessage.content, ...end.map(inputText)];
      if (before.length > 0) unstableMessage = request.messages.length - 1;
    } else {
      input.push({ type: 'message', role: systemRole, content: [inputText([...before, ...end].join('\n\n'))] });
    }
  }

  const anchors: ZoneAnchors<MarkablePart> = {};
  for (const entry of anchorable) {
    const anchor: Anchor<MarkablePart> = { part: entry.part, path: entry.path, zone: entry.zone };
    if (entry.zone === 'global') anchors.global = anchor;
    else if (entry.zone === 'session') anchors.session = anchor;
    else if (entry.zone === 'history' && entry.messageIndex !== unstableMessage) anchors.history = anchor;
  }
  const breakpoints =
    facts.explicitBreakpoints && options.breakpoints !== 'off'
      ? markOpenAIBreakpoints(anchors, options.breakpointMode ?? 'explicit')
      : [];

  const tools = toolsWithDeferred(request, options.deferredTools ?? 'append');
  const hasTools = tools.length > 0;
  const body: OpenAIResponsesBody = { model: request.model, input, max_output_tokens: request.params.maxTokens };
  if (hasTools) body.tools = tools.map(functionTool);
  if (hasTools && request.params.toolChoice) body.tool_choice = toolChoice(request.params.toolChoice);
  if (hasTools && request.params.parallelToolCalls !== undefined) body.parallel_tool_calls = request.params.parallelToolCalls;
  if (facts.reasoning) {
    if (request.params.temperature !== undefined || request.params.topP !== undefined) {
      warnings.push(
        adapterWarning('sampling-dropped', 'params: temperature/topP dropped (reasoning models reject sampling parameters)'),
      );
    }
    if (request.params.effort || options.reasoningSummary) {
      body.reasoning = {};
      if (request.params.effort) body.reasoning.effort = request.params.effort;
      if (options.reasoningSummary) body.reasoning.summary = options.reasoningSummary;
    }
  } else {
    if (request.params.temperature !== undefined) body.temperature = request.params.temperature;
    if (request.params.topP !== undefined) body.top_p = request.params.topP;
  }
  if (request.params.stopSequences && request.params.stopSequences.length > 0) {
    warnings.push(adapterWarning('stop-dropped', 'params: stopSequences dropped (the Responses API has no stop parameter)'));
  }
  body.store = options.store ?? false;
  if (facts.reasoning && body.store === false) body.include = ['reasoning.encrypted_content'];
  Object.assign(body, cacheFields(request, options, facts, breakpoints.length > 0, warnings));
  return { body, metadata: { breakpoints, padding: null, warnings } };
}

function inputText(text: string): ResponseInputText {
  return { type: 'input_text', text };
}

function assistantItems(message: AssistantMessage, base: string, warnings: AdapterWarning[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'text': {
        const previous = items.at(-1);
        // Consecutive text blocks form one assistant message, as the model produced them.
        if (previous && 'role' in previous && previous.role === 'assistant' && typeof previous.content === 'string') {
          previous.content = `${previous.content}\n\n${block.text}`;
        } else {
          const item: EasyInputMessage = { type: 'message', role: 'assistant', content: block.text };
          items.push(item);
        }
        break;
      }
      case 'tool_use':
        items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: canonicalJson(block.input) });
        break;
      case 'thinking': {
        const reasoning = reasoningItemFromThinking(block);
        if (reasoning) items.push(reasoning);
        else
          warnings.push(
            adapterWarning(
              'thinking-not-sent',
              `${base}.content[${index}]: thinking block without an OpenAI reasoning signature is not sent`,
              `${base}.content[${index}]`,
            ),
          );
        break;
      }
      case 'redacted_thinking':
        warnings.push(
          adapterWarning(
            'thinking-not-sent',
            `${base}.content[${index}]: redacted thinking from another provider is not sent`,
            `${base}.content[${index}]`,
          ),
        );
        break;
      default:
        assertNever(block);
    }
  });
  return items;
}

function functionCallOutput(
  block: ToolResultBlock,
  path: string,
  zone: Zone,
  messageIndex: number,
  anchorable: Array<Anchor<MarkablePart> & { messageIndex: number }>,
): ResponseInputItem.FunctionCallOutput {
  if (block.content.length === 0) return { type: 'function_call_output', call_id: block.toolUseId, output: '' };
  const output = block.content.map((item, index): ResponseFunctionCallOutputItem => {
    const part: ResponseFunctionCallOutputItem =
      item.type === 'text'
        ? { type: 'input_text', text: item.text }
        : { type: 'input_image', detail: 'auto', image_url: mediaUrl(item.source) };
    anchorable.push({ part, path: `${path}.content[${index}]`, zone, messageIndex });
    return part;
  });
  return { type: 'function_call_output', call_id: block.toolUseId, output };
}

function userPart(block: Exclude<UserContentBlock, { type: 'tool_result' }>): UserPart {
  switch (block.type) {
    case 'text':
      return inputText(block.text);
    case 'image':
      return { type: 'input_image', detail: 'auto', image_url: mediaUrl(block.source) };
    case 'document': {
      const source = block.source;
      if (source.kind === 'text') return inputText(block.title ? `${block.title}\n\n${source.data}` : source.data);
      if (source.kind === 'url') return { type: 'input_file', file_url: source.url };
      return { type: 'input_file', filename: block.title ?? 'document.pdf', file_data: mediaUrl(source) };
    }
    default:
      return assertNever(block);
  }
}

function functionTool(tool: CanonicalRequest['tools'][number]): FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: canonicalize(tool.inputSchema),
    strict: false,
  };
}

/** The Chat Completions mapping, with Responses' flat `{ type: 'function', name }` for one named tool. */
function toolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  const chat = toChatToolChoice(choice);
  return typeof chat === 'string' ? chat : { type: 'function', name: chat.function.name };
}
