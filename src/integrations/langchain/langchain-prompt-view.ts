import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type {
  MiddlewareCallParams,
  PromptMessage,
  PromptPart,
  PromptTool,
  ProviderOptionsRecord,
} from '../shared/prompt-view.js';
import { anthropicMarkerOf } from '../shared/prompt-view.js';

/** The parts of a LangChain `ModelRequest` the middleware reads and rewrites. */
export interface LangChainRequestParts {
  messages: BaseMessage[];
  systemMessage?: SystemMessage | undefined;
  tools: readonly unknown[];
}

type Marker = { type: 'ephemeral'; ttl?: '1h' };

/**
 * The request as the wire blocks `@langchain/anthropic` will send, in Cachet's prompt view:
 * system text blocks, tools, then one part per content block (an AI message's text, then its
 * tool calls; a tool message is one tool result). Paths match `planPromptBreakpoints`.
 */
export function langChainPromptView(request: LangChainRequestParts): MiddlewareCallParams {
  const prompt: PromptMessage[] = [];
  for (const text of systemTexts(request.systemMessage)) prompt.push({ role: 'system', content: text });
  for (const message of request.messages) prompt.push(viewOf(message));
  return { prompt, tools: request.tools.map(toolView) };
}

/**
 * The request with `cache_control` on exactly the blocks at `marks` (paths from the view) and
 * `tail` texts appended after the history. Every other marker the caller set (system blocks,
 * tools, human, AI and tool message blocks) is removed, so the request carries the plan's
 * markers and no more: the plan already counted the ones `existingMarkers: 'keep'` kept.
 * A run of tool messages that needs a marker or the tail is sent as the one user message of
 * `tool_result` blocks @langchain/anthropic would have merged it into, with the tail after the
 * results: parallel results stay together and the tail never separates them from their calls.
 * Messages and tools that need no change are passed through as they were.
 */
export function applyLangChainMarkers(
  request: LangChainRequestParts,
  marks: ReadonlyMap<string, Marker>,
  tail: readonly string[],
  provider: 'anthropic' | 'openai' = 'anthropic',
): {
  messages: BaseMessage[];
  systemMessage: SystemMessage | undefined;
  tools: unknown[];
  dropped: string[];
  tailPlaced: boolean;
} {
  const dropped: string[] = [];
  const texts = systemTexts(request.systemMessage);
  const systemMarked =
    texts.some((_text, index) => marks.has(`system[${index}]`)) || hasBlockMarker(request.systemMessage?.content);
  const systemMessage =
    systemMarked && request.systemMessage
      ? new SystemMessage({
          content: texts.map((text, index) => {
            const marker = marks.get(`system[${index}]`);
            return marker ? { type: 'text' as const, text, cache_control: marker } : { type: 'text' as const, text };
          }),
        })
      : request.systemMessage;
  const tools = request.tools.map((tool, index) => {
    const marker = marks.get(`tools[${index}]`);
    if (!marker) return withoutToolMarker(tool);
    const view = toolView(tool);
    return { name: view.name, description: view.description ?? '', input_schema: view.inputSchema, cache_control: marker };
  });
  const offset = texts.length;
  const markAt = (index: number, partIndex: number) => marks.get(`messages[${offset + index}].content[${partIndex}]`);
  const tailBlocks = tail.map((text) => ({ type: 'text' as const, text }));
  const source = request.messages;
  const messages: BaseMessage[] = [];
  let tailPlaced = tail.length === 0;
  for (let index = 0; index < source.length; ) {
    const message = source[index] as BaseMessage;
    if (ToolMessage.isInstance(message) && provider === 'anthropic') {
      let end = index;
      while (end < source.length && ToolMessage.isInstance(source[end])) end++;
      const run = source.slice(index, end) as ToolMessage[];
      const endsRequest = end === source.length;
      const needsRewrite =
        run.some((tool, runIndex) => markAt(index + runIndex, 0) !== undefined || hasBlockMarker(tool.content)) ||
        (endsRequest && !tailPlaced);
      if (!needsRewrite) {
        messages.push(...run);
      } else {
        const results = run.map((tool, runIndex) => toolResultBlock(tool, markAt(index + runIndex, 0)));
        const withTail = endsRequest && !tailPlaced;
        const content = withTail ? [...results, ...tailBlocks] : results;
        messages.push(new HumanMessage({ content } as ConstructorParameters<typeof HumanMessage>[0]));
        if (withTail) tailPlaced = true;
      }
      index = end;
      continue;
    }
    const isLast = index === source.length - 1;
    if (HumanMessage.isInstance(message)) {
      const appendTail = isLast && !tailPlaced;
      messages.push(humanMessageOut(message, (partIndex) => markAt(index, partIndex), appendTail ? tailBlocks : []));
      if (appendTail) tailPlaced = true;
    } else if (AIMessage.isInstance(message)) {
      const parts = viewOf(message).content as PromptPart[];
      if (parts.some((_part, partIndex) => markAt(index, partIndex))) dropped.push(`messages[${offset + index}]`);
      messages.push(aiMessageOut(message));
    } else {
      messages.push(message);
      // OpenAI reads system messages anywhere: after tool results the tail is one, never a user turn.
      if (isLast && !tailPlaced && ToolMessage.isInstance(message)) {
        messages.push(new SystemMessage({ content: tail.join('\n\n') }));
        tailPlaced = true;
      }
    }
    index++;
  }
  // A tail after an AI message would be a user turn the caller never wrote: it is left out.
  return { messages, systemMessage, tools, dropped, tailPlaced };
}

type ContentBlock = Record<string, unknown>;

/** The messages with each turn's persisted tail texts appended to the human message that opened it. */
export function withPersistedHumanTail(
  messages: BaseMessage[],
  keys: ReadonlyArray<string | null>,
  persisted: ReadonlyMap<string, readonly string[]>,
): BaseMessage[] {
  if (persisted.size === 0) return messages;
  return messages.map((message, index) => {
    const key = keys[index];
    const texts = key ? persisted.get(key) : undefined;
    if (!texts || !HumanMessage.isInstance(message)) return message;
    const blocks: unknown[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const content = [...blocks, ...texts.map((text) => ({ type: 'text', text }))];
    return new HumanMessage({ ...message, content } as unknown as ConstructorParameters<typeof HumanMessage>[0]);
  });
}

/** An empty text block the API refuses ("text content blocks must be non-empty"); dropping it changes nothing. */
function isEmptyText(block: unknown): boolean {
  const record = block as ContentBlock;
  return record?.type === 'text' && record.text === '' && !record.cache_control;
}

/** A human message with exactly the plan's markers, empty text blocks dropped and the tail after its blocks. */
function humanMessageOut(
  message: HumanMessage,
  markAt: (partIndex: number) => Marker | undefined,
  tailBlocks: readonly ContentBlock[],
): HumanMessage {
  const blocks = typeof message.content === 'string' ? null : message.content;
  const marked = [0, ...(blocks ?? []).keys()].some((partIndex) => markAt(partIndex) !== undefined);
  const needsRewrite = marked || tailBlocks.length > 0 || hasBlockMarker(blocks) || (blocks ?? []).some(isEmptyText);
  if (!needsRewrite) return message;
  const asBlocks: unknown[] = blocks ?? (message.content === '' ? [] : [{ type: 'text', text: message.content as string }]);
  const content: unknown[] = [
    ...asBlocks.map((block, blockIndex) => withMarker(block, markAt(blockIndex))).filter((block) => !isEmptyText(block)),
    ...tailBlocks,
  ];
  // A message left with nothing keeps its original (empty) content rather than vanishing from the turn.
  if (content.length === 0) return message;
  return new HumanMessage({ ...message, content } as unknown as ConstructorParameters<typeof HumanMessage>[0]);
}

/** An AI message without caller markers or empty text blocks (LangChain sends its blocks back as they came). */
function aiMessageOut(message: AIMessage): AIMessage {
  if (typeof message.content === 'string') return message;
  if (!hasBlockMarker(message.content) && !message.content.some(isEmptyText)) return message;
  const content = message.content.map((block) => withMarker(block, undefined)).filter((block) => !isEmptyText(block));
  return new AIMessage({ ...message, content } as ConstructorParameters<typeof AIMessage>[0]);
}

/** Whether any block of a content array carries `cache_control`. */
function hasBlockMarker(content: unknown): boolean {
  return (
    Array.isArray(content) && content.some((block) => typeof block === 'object' && block !== null && 'cache_control' in block)
  );
}

/** A copy of a content block with exactly `marker` as its `cache_control` (none when undefined). */
function withMarker<T>(block: T, marker: Marker | undefined): T {
  if (typeof block !== 'object' || block === null) return block;
  const { cache_control: _caller, ...rest } = block as ContentBlock;
  return (marker ? { ...rest, cache_control: marker } : rest) as T;
}

function withoutToolMarker(tool: unknown): unknown {
  if (typeof tool !== 'object' || tool === null || !('cache_control' in tool)) return tool;
  const { cache_control: _caller, ...rest } = tool as ContentBlock;
  return rest;
}

/** A tool message as the `tool_result` block @langchain/anthropic sends (key order kept, so the bytes match). */
function toolResultBlock(message: ToolMessage, marker: Marker | undefined): ContentBlock {
  const content = toolResultContent(message);
  return {
    type: 'tool_result',
    content: Array.isArray(content) ? content.map((block) => withMarker(block, undefined)) : content,
    tool_use_id: message.tool_call_id,
    ...(marker ? { cache_control: marker } : {}),
  };
}

function systemTexts(message: SystemMessage | undefined): string[] {
  if (!message) return [];
  if (typeof message.content === 'string') return message.content === '' ? [] : [message.content];
  return message.content.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
}

function viewOf(message: BaseMessage): PromptMessage {
  if (ToolMessage.isInstance(message)) {
    return {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: message.tool_call_id, output: toolResultContent(message) }],
    };
  }
  if (AIMessage.isInstance(message)) {
    const parts: PromptPart[] = [];
    if (typeof message.content === 'string') {
      if (message.content !== '') parts.push({ type: 'text', text: message.content });
    } else {
      for (const block of message.content) {
        if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
        else if (block.type === 'thinking' || block.type === 'redacted_thinking')
          parts.push({ type: 'reasoning', text: String(block.thinking ?? '') });
      }
    }
    for (const call of message.tool_calls ?? []) {
      parts.push({ type: 'tool-call', toolCallId: call.id ?? '', toolName: call.name, input: call.args });
    }
    return { role: 'assistant', content: parts };
  }
  const content = message.content;
  const parts: PromptPart[] =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : content.map((block) => {
          const options: ProviderOptionsRecord | undefined =
            'cache_control' in block && block.cache_control ? { anthropic: { cacheControl: block.cache_control } } : undefined;
          const part: PromptPart =
            block.type === 'text' && typeof block.text === 'string'
              ? { type: 'text', text: block.text }
              : { type: block.type, input: block };
          return options ? { ...part, providerOptions: options } : part;
        });
  return { role: 'user', content: parts };
}

function toolResultContent(message: ToolMessage): string | unknown[] {
  return typeof message.content === 'string' ? message.content : message.content;
}

function toolView(tool: unknown): PromptTool {
  const record = tool as {
    name?: unknown;
    description?: unknown;
    schema?: unknown;
    input_schema?: unknown;
    cache_control?: unknown;
  };
  const name = typeof record.name === 'string' ? record.name : 'tool';
  let inputSchema: unknown = record.input_schema ?? {};
  if (record.schema !== undefined) {
    try {
      inputSchema = toJsonSchema(record.schema as Parameters<typeof toJsonSchema>[0]);
    } catch {
      inputSchema = record.schema;
    }
  }
  const view: PromptTool = { type: 'function', name, inputSchema };
  if (typeof record.description === 'string') view.description = record.description;
  if (record.cache_control) view.providerOptions = { anthropic: { cacheControl: record.cache_control } };
  return view;
}

/** Whether a marker from the caller is on any block of the view (for `existingMarkers: 'keep'`). */
export function hasCallerMarkers(view: MiddlewareCallParams): boolean {
  return (
    (view.tools ?? []).some((tool) => anthropicMarkerOf(tool.providerOptions)) ||
    view.prompt.some(
      (message) => typeof message.content !== 'string' && message.content.some((part) => anthropicMarkerOf(part.providerOptions)),
    )
  );
}
