import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type {
  AssistantModelMessage,
  FilePart,
  JSONValue,
  ModelMessage,
  SystemModelMessage,
  TextPart,
  ToolChoice,
  ToolModelMessage,
  ToolResultPart,
  ToolSet,
  UserModelMessage,
} from 'ai';
import { jsonSchema, tool } from 'ai';
import { ValidationError } from '../../model/errors.js';
import type { AiSdkCall, AiSdkProviderOptions } from './ai-sdk-types.js';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];
type UserPart = Exclude<UserModelMessage['content'], string>[number];
type ToolResultOutput = ToolResultPart['output'];

/** Names the AI SDK's tool record would reorder (JavaScript sorts array-index keys first). */
const ARRAY_INDEX_KEY = /^(0|[1-9][0-9]*)$/;

/**
 * Rewrite a Messages API body built by Cachet's Anthropic adapter as AI SDK call options, block
 * for block: every `cache_control` marker becomes `providerOptions.anthropic.cacheControl` on the
 * part that carries it, so `@ai-sdk/anthropic` sends the markers, the block order and the turn
 * tail exactly where the adapter placed them.
 *
 * A wire user message that holds tool results and text (the turn tail in a tool loop) becomes a
 * `tool` message followed by a `user` message; the AI SDK's Anthropic provider merges consecutive
 * `tool`/`user` messages back into one wire user message, in the same order.
 */
export function anthropicBodyToAiSdk(body: MessageCreateParamsNonStreaming): AiSdkCall {
  const toolNames = new Map<string, string>();
  const messages: ModelMessage[] = [];
  body.messages.forEach((message, index) => {
    messages.push(...convertMessage(message, `body.messages[${index}]`, toolNames));
  });

  const anthropic: Record<string, JSONValue> = {};
  if (body.cache_control) anthropic.cacheControl = cacheControlOption(body.cache_control);
  if (body.tool_choice && 'disable_parallel_tool_use' in body.tool_choice && body.tool_choice.disable_parallel_tool_use) {
    anthropic.disableParallelToolUse = true;
  }
  if (body.thinking) {
    anthropic.thinking =
      body.thinking.type === 'enabled'
        ? { type: 'enabled', budgetTokens: body.thinking.budget_tokens }
        : { type: body.thinking.type };
  }
  const effort = body.output_config?.effort;
  if (effort) anthropic.effort = effort;

  const call: AiSdkCall = {
    messages,
    providerOptions: Object.keys(anthropic).length > 0 ? { anthropic } : {},
    maxOutputTokens: body.max_tokens,
  };
  const system = convertSystem(body.system);
  if (system.length > 0) call.system = system;
  if (body.tools && body.tools.length > 0) call.tools = convertTools(body.tools as Tool[]);
  const toolChoice = convertToolChoice(body.tool_choice);
  if (toolChoice) call.toolChoice = toolChoice;
  if (body.stop_sequences && body.stop_sequences.length > 0) call.stopSequences = [...body.stop_sequences];
  return call;
}

function cacheControlOption(marker: CacheControlEphemeral): JSONValue {
  return marker.ttl ? { type: 'ephemeral', ttl: marker.ttl } : { type: 'ephemeral' };
}

/** `providerOptions` carrying the block's marker, or `undefined` when it has none. */
function markerOptions(block: { cache_control?: CacheControlEphemeral | null }): AiSdkProviderOptions | undefined {
  return block.cache_control ? { anthropic: { cacheControl: cacheControlOption(block.cache_control) } } : undefined;
}

function withOptions<Part extends object>(part: Part, options: AiSdkProviderOptions | undefined): Part {
  return options ? { ...part, providerOptions: options } : part;
}

function convertSystem(system: MessageCreateParamsNonStreaming['system']): SystemModelMessage[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return [{ role: 'system', content: system }];
  return system.map((block: TextBlockParam) =>
    withOptions<SystemModelMessage>({ role: 'system', content: block.text }, markerOptions(block)),
  );
}

function convertTools(tools: Tool[]): ToolSet {
  const set: ToolSet = {};
  tools.forEach((wire, index) => {
    if (ARRAY_INDEX_KEY.test(wire.name)) {
      throw new ValidationError(
        `body.tools[${index}].name`,
        'a tool name that is not an integer',
        'the AI SDK tool record would move it first',
      );
    }
    set[wire.name] = tool({
      ...(wire.description !== undefined ? { description: wire.description } : {}),
      inputSchema: jsonSchema(wire.input_schema as Parameters<typeof jsonSchema>[0]),
      ...(wire.cache_control ? { providerOptions: markerOptions(wire) } : {}),
    });
  });
  return set;
}

function convertToolChoice(choice: MessageCreateParamsNonStreaming['tool_choice']): ToolChoice<ToolSet> | undefined {
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'tool', toolName: choice.name };
    default:
      return undefined;
  }
}

function convertMessage(message: MessageParam, path: string, toolNames: Map<string, string>): ModelMessage[] {
  const blocks: ContentBlockParam[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (message.role === 'assistant') {
    return [
      { role: 'assistant', content: blocks.map((block, index) => assistantPart(block, `${path}.content[${index}]`, toolNames)) },
    ];
  }
  // Runs of tool results become `tool` messages, runs of other blocks `user` messages, in order.
  const converted: Array<UserModelMessage | ToolModelMessage> = [];
  blocks.forEach((block, index) => {
    const blockPath = `${path}.content[${index}]`;
    const last = converted[converted.length - 1];
    if (block.type === 'tool_result') {
      const part = toolResultPart(block, blockPath, toolNames);
      if (last?.role === 'tool') last.content.push(part);
      else converted.push({ role: 'tool', content: [part] });
      return;
    }
    const part = userPart(block, blockPath);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(part);
    else converted.push({ role: 'user', content: [part] });
  });
  return converted;
}

function assistantPart(block: ContentBlockParam, path: string, toolNames: Map<string, string>): AssistantPart {
  switch (block.type) {
    case 'text':
      return withOptions<TextPart>({ type: 'text', text: block.text }, markerOptions(block));
    case 'tool_use':
      toolNames.set(block.id, block.name);
      return withOptions<AssistantPart>(
        { type: 'tool-call', toolCallId: block.id, toolName: block.name, input: block.input },
        markerOptions(block),
      );
    case 'thinking':
      return { type: 'reasoning', text: block.thinking, providerOptions: { anthropic: { signature: block.signature } } };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: block.data } } };
    default:
      throw new ValidationError(
        `${path}.type`,
        'text, tool_use, thinking or redacted_thinking in an assistant message',
        `got ${block.type}`,
      );
  }
}

function userPart(block: ContentBlockParam, path: string): UserPart {
  const options = markerOptions(block as { cache_control?: CacheControlEphemeral | null });
  switch (block.type) {
    case 'text':
      return withOptions<TextPart>({ type: 'text', text: block.text }, options);
    case 'image': {
      const source = block.source;
      if (source.type === 'url')
        return withOptions<FilePart>({ type: 'file', data: new URL(source.url), mediaType: 'image/*' }, options);
      if (source.type === 'base64')
        return withOptions<FilePart>({ type: 'file', data: source.data, mediaType: source.media_type }, options);
      throw new ValidationError(`${path}.source.type`, 'base64 or url', `got ${source.type}`);
    }
    case 'document': {
      const source = block.source;
      const title = block.title ? { filename: block.title } : {};
      let part: FilePart;
      if (source.type === 'base64') part = { type: 'file', data: source.data, mediaType: 'application/pdf', ...title };
      else if (source.type === 'text') {
        part = { type: 'file', data: new TextEncoder().encode(source.data), mediaType: 'text/plain', ...title };
      } else if (source.type === 'url')
        part = { type: 'file', data: new URL(source.url), mediaType: 'application/pdf', ...title };
      else throw new ValidationError(`${path}.source.type`, 'base64, text or url', `got ${source.type}`);
      return withOptions(part, options);
    }
    default:
      throw new ValidationError(`${path}.type`, 'text, image, document or tool_result in a user message', `got ${block.type}`);
  }
}

function toolResultPart(block: ToolResultBlockParam, path: string, toolNames: Map<string, string>): ToolResultPart {
  const toolName = toolNames.get(block.tool_use_id);
  if (toolName === undefined) {
    throw new ValidationError(
      `${path}.tool_use_id`,
      'the id of a tool_use in an earlier assistant message',
      `got ${block.tool_use_id}`,
    );
  }
  return withOptions<ToolResultPart>(
    { type: 'tool-result', toolCallId: block.tool_use_id, toolName, output: toolResultOutput(block, path) },
    markerOptions(block),
  );
}

function toolResultOutput(block: ToolResultBlockParam, path: string): ToolResultOutput {
  const content = typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : (block.content ?? []);
  if (block.is_error === true) {
    // The AI SDK sets `is_error` only for `error-text` / `error-json`, which it sends as a string.
    const texts = content.map((inner, index) => {
      if (inner.type !== 'text')
        throw new ValidationError(`${path}.content[${index}]`, 'text in an error tool result', `got ${inner.type}`);
      return inner.text;
    });
    return { type: 'error-text', value: texts.join('\n') };
  }
  return {
    type: 'content',
    value: content.map((inner, index) => {
      switch (inner.type) {
        case 'text':
          return { type: 'text' as const, text: inner.text };
        case 'image':
          return inner.source.type === 'url'
            ? { type: 'image-url' as const, url: inner.source.url }
            : inner.source.type === 'base64'
              ? { type: 'image-data' as const, data: inner.source.data, mediaType: inner.source.media_type }
              : unsupported(`${path}.content[${index}].source`, inner.source.type);
        default:
          return unsupported(`${path}.content[${index}].type`, inner.type);
      }
    }),
  };
}

function unsupported(path: string, got: string): never {
  throw new ValidationError(path, 'a block the AI SDK can carry in a tool result', `got ${got}`);
}
