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
 * The request with `cache_control` on the blocks at `marks` (paths from the view) and `tail`
 * texts appended after the history; every other message and tool object is passed through as
 * it was. Tool messages that carry a marker are sent as the `tool_result` block they become
 * anyway, so the marker lands on that block.
 */
export function applyLangChainMarkers(
  request: LangChainRequestParts,
  marks: ReadonlyMap<string, Marker>,
  tail: readonly string[],
): { messages: BaseMessage[]; systemMessage: SystemMessage | undefined; tools: unknown[]; dropped: string[] } {
  const dropped: string[] = [];
  const texts = systemTexts(request.systemMessage);
  const systemMarked = texts.some((_text, index) => marks.has(`system[${index}]`));
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
    if (!marker) return tool;
    const view = toolView(tool);
    return { name: view.name, description: view.description ?? '', input_schema: view.inputSchema, cache_control: marker };
  });
  const offset = texts.length;
  const messages = request.messages.map((message, index) => {
    const view = viewOf(message);
    const parts = view.content as PromptPart[];
    const markedParts = parts.map((_part, partIndex) => marks.get(`messages[${offset + index}].content[${partIndex}]`));
    if (!markedParts.some(Boolean)) return message;
    if (ToolMessage.isInstance(message)) {
      return new HumanMessage({
        content: [
          {
            // Key order as @langchain/anthropic writes an unmarked tool message, so the bytes match.
            type: 'tool_result',
            content: toolResultContent(message),
            tool_use_id: message.tool_call_id,
            cache_control: markedParts[0],
          },
        ],
      });
    }
    if (HumanMessage.isInstance(message)) {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      return new HumanMessage({
        ...message,
        content: blocks.map((block, blockIndex) =>
          markedParts[blockIndex] ? { ...block, cache_control: markedParts[blockIndex] } : block,
        ),
      } as ConstructorParameters<typeof HumanMessage>[0]);
    }
    dropped.push(`messages[${offset + index}]`);
    return message;
  });
  if (tail.length > 0) {
    const tailBlocks = tail.map((text) => ({ type: 'text' as const, text }));
    const last = messages.at(-1);
    if (last && HumanMessage.isInstance(last)) {
      const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
      messages[messages.length - 1] = new HumanMessage({ ...last, content: [...blocks, ...tailBlocks] } as ConstructorParameters<
        typeof HumanMessage
      >[0]);
    } else {
      messages.push(new HumanMessage({ content: tailBlocks }));
    }
  }
  return { messages, systemMessage, tools, dropped };
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
