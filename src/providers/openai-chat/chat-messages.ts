import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { canonicalJson } from '../../model/canonical-json.js';
import type { AssistantMessage, ImageBlock, MediaSource, TextBlock, UserContentBlock } from '../../model/content.js';
import type { CanonicalRequest, TailItem, Zone } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';

/** Anthropic-style marker that OpenRouter passes through to Anthropic and Alibaba routes. */
export interface CacheControlMarker {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export type ChatTextPart = ChatCompletionContentPartText & { cache_control?: CacheControlMarker };
export type ChatPart = ChatCompletionContentPart & { cache_control?: CacheControlMarker };

export type ChatSystemMessage =
  | { role: 'system'; content: string | ChatTextPart[] }
  | { role: 'developer'; content: string | ChatTextPart[] };
export interface ChatUserMessage {
  role: 'user';
  content: string | ChatPart[];
}
export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | ChatTextPart[];
}
/** Assistant message; the reasoning fields are what OpenAI-compatible servers read back. */
export interface ChatAssistantMessage {
  role: 'assistant';
  content?: string | ChatTextPart[] | null;
  tool_calls?: ChatCompletionMessageFunctionToolCall[];
  reasoning_content?: string;
  reasoning?: string;
  thinking?: string;
}
export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatToolMessage | ChatAssistantMessage;

/**
 * How one Chat-Completions-shaped API wants messages written. OpenAI, OpenRouter and each
 * local engine/template family differ only here.
 */
export interface ChatDialect {
  systemRole: 'system' | 'developer';
  /** `parts`: arrays of content parts (markers can be attached); `string`: plain strings, as chat templates expect. */
  contentForm: 'parts' | 'string';
  /** `content` of an assistant message that only calls tools (Qwen3's template raises on `null`). */
  toolCallContent: 'null' | 'empty-string' | 'omit';
  /**
   * Where the turn tail goes while a tool loop continues. `trailing-system`: a system/developer
   * message after the tool results. `merge-into-last-input`: appended to the last tool result (or
   * user message). `trailing-user`: a user message after the tool results — only for routes whose
   * upstream merges it into the tool-result turn (Anthropic via OpenRouter).
   */
  tailInToolLoop: 'trailing-system' | 'merge-into-last-input' | 'trailing-user';
  /** Where the turn tail goes when the request ends with the user's own message. */
  tailInTurn: 'merge-into-user' | 'trailing-system';
  /** Whether assistant reasoning is written back, and under which field. */
  reasoning: { send: 'never' | 'tool-call-turns' | 'always'; field: 'reasoning_content' | 'reasoning' | 'thinking' };
}

/** A wire part that could carry a cache marker, with the canonical path it came from. */
export interface Anchor<Part = ChatPart> {
  part: Part;
  path: string;
  zone: Zone;
}

/**
 * Where a wire message, content part or tool call came from. Parts the tail adds have none, so
 * a walk over the messages can tell persisted content from the turn tail.
 */
export interface WireOrigin {
  /** Canonical path: `system[1]`, `messages[4]`, `messages[4].content[2]`, `messages[3].tool_calls[0]`. */
  path: string;
  zone: Zone;
  /** Index of the canonical message; null for system parts. */
  messageIndex: number | null;
  /** Whether a cache marker may go on it (a content part; for assistant replies, only the last text). */
  markable: boolean;
}

export interface ChatMessagesResult {
  messages: ChatMessage[];
  /** Last markable part of each zone; `history` stops before anything whose position moves next turn. */
  anchors: { global?: Anchor; session?: Anchor; history?: Anchor };
  /** Origin of every wire message, part and tool call built from the canonical request (not the tail). */
  origins: Map<object, WireOrigin>;
  warnings: AdapterWarning[];
}

const TOOL_IMAGE_PLACEHOLDER = '[image omitted: Chat Completions tool messages carry text only]';

/**
 * Messages for a Chat-Completions-shaped API, in prefix order: system (global then session
 * segments), session and history messages, then the turn tail placed by the dialect. Pure and
 * deterministic: tool inputs go through canonical JSON, nothing reads a clock.
 */
export function buildChatMessages(request: CanonicalRequest, dialect: ChatDialect): ChatMessagesResult {
  const messages: ChatMessage[] = [];
  const anchorable: Array<Anchor & { messageIndex: number }> = [];
  const origins = new Map<object, WireOrigin>();
  const warnings: AdapterWarning[] = [];
  const markable = (anchor: Anchor & { messageIndex: number }) => {
    anchorable.push(anchor);
    origins.set(anchor.part, {
      path: anchor.path,
      zone: anchor.zone,
      messageIndex: anchor.messageIndex < 0 ? null : anchor.messageIndex,
      markable: true,
    });
  };

  if (request.system.length > 0) {
    if (dialect.contentForm === 'parts') {
      const parts = request.system.map((segment, index) => {
        const part: ChatTextPart = { type: 'text', text: segment.text };
        markable({ part, path: `system[${index}]`, zone: segment.zone, messageIndex: -1 });
        return part;
      });
      messages.push(systemMessage(dialect.systemRole, parts));
    } else {
      messages.push(systemMessage(dialect.systemRole, request.system.map((segment) => segment.text).join('\n\n')));
    }
  }

  let lastUserMessage: ChatUserMessage | undefined;
  request.messages.forEach((message, messageIndex) => {
    const zone: Zone = messageIndex < request.layout.sessionMessageCount ? 'session' : 'history';
    const base = `messages[${messageIndex}]`;
    if (message.role === 'assistant') {
      const wire = assistantMessage(message, dialect);
      origins.set(wire, { path: base, zone, messageIndex, markable: false });
      if (Array.isArray(wire.content)) {
        const textIndexes = blockIndexes(message, 'text');
        wire.content.forEach((part, partIndex) => {
          const path = `${base}.content[${textIndexes[partIndex]}]`;
          // Only the last text part can be a breakpoint worth having: the end of the reply.
          if (partIndex === textIndexes.length - 1) markable({ part, path, zone, messageIndex });
          else origins.set(part, { path, zone, messageIndex, markable: false });
        });
      }
      const toolUseIndexes = blockIndexes(message, 'tool_use');
      wire.tool_calls?.forEach((call, callIndex) => {
        const path = `${base}.content[${toolUseIndexes[callIndex]}]`;
        origins.set(call, { path, zone, messageIndex, markable: false });
      });
      messages.push(wire);
      lastUserMessage = undefined;
      return;
    }
    const otherParts: ChatPart[] = [];
    const otherTexts: string[] = [];
    let textOnly = true;
    message.content.forEach((block, blockIndex) => {
      const path = `${base}.content[${blockIndex}]`;
      if (block.type === 'tool_result') {
        const wire = toolMessage(block, path, zone, messageIndex, dialect, markable, warnings);
        origins.set(wire, { path, zone, messageIndex, markable: false });
        messages.push(wire);
        return;
      }
      const part = userPart(block, path, warnings);
      if (part.type !== 'text') textOnly = false;
      otherParts.push(part);
      if (part.type === 'text') otherTexts.push(part.text);
      markable({ part, path, zone, messageIndex });
    });
    lastUserMessage = undefined;
    if (otherParts.length === 0) return;
    const content = dialect.contentForm === 'string' && textOnly ? otherTexts.join('\n\n') : otherParts;
    lastUserMessage = { role: 'user', content };
    origins.set(lastUserMessage, { path: base, zone, messageIndex, markable: false });
    messages.push(lastUserMessage);
  });

  const lastIndex = request.messages.length - 1;
  const unstableMessage = placeTail(request.tail.items, messages, lastUserMessage, dialect, warnings) ? lastIndex : null;

  const anchors: ChatMessagesResult['anchors'] = {};
  if (dialect.contentForm === 'parts') {
    for (const entry of anchorable) {
      const anchor: Anchor = { part: entry.part, path: entry.path, zone: entry.zone };
      if (entry.zone === 'global') anchors.global = anchor;
      else if (entry.zone === 'session') anchors.session = anchor;
      else if (entry.zone === 'history' && entry.messageIndex !== unstableMessage) anchors.history = anchor;
    }
  }
  return { messages, anchors, origins, warnings };
}

function systemMessage(role: ChatDialect['systemRole'], content: string | ChatTextPart[]): ChatSystemMessage {
  return role === 'developer' ? { role: 'developer', content } : { role: 'system', content };
}

function assistantMessage(message: AssistantMessage, dialect: ChatDialect): ChatAssistantMessage {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'tool_use':
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: canonicalJson(block.input) } });
        break;
      case 'thinking':
        if (block.thinking.length > 0) reasoning.push(block.thinking);
        break;
      case 'redacted_thinking':
        // Encrypted provider data means nothing to another API or a local template.
        break;
      default:
        assertNever(block);
    }
  }
  const result: ChatAssistantMessage = { role: 'assistant' };
  if (texts.length > 0) result.content = dialect.contentForm === 'parts' ? texts.map(textPart) : texts.join('\n\n');
  else if (toolCalls.length === 0) result.content = '';
  else if (dialect.toolCallContent === 'null') result.content = null;
  else if (dialect.toolCallContent === 'empty-string') result.content = '';
  const sendReasoning =
    reasoning.length > 0 &&
    (dialect.reasoning.send === 'always' || (dialect.reasoning.send === 'tool-call-turns' && toolCalls.length > 0));
  if (sendReasoning) result[dialect.reasoning.field] = reasoning.join('\n\n');
  if (toolCalls.length > 0) result.tool_calls = toolCalls;
  return result;
}

/** Indexes of the message's blocks of one type, in order (the wire keeps texts and tool calls apart). */
function blockIndexes(message: AssistantMessage, type: 'text' | 'tool_use'): number[] {
  return message.content.flatMap((block, index) => (block.type === type ? [index] : []));
}

function toolMessage(
  block: Extract<UserContentBlock, { type: 'tool_result' }>,
  path: string,
  zone: Zone,
  messageIndex: number,
  dialect: ChatDialect,
  markable: (anchor: Anchor & { messageIndex: number }) => void,
  warnings: AdapterWarning[],
): ChatToolMessage {
  const texts = block.content.map((item: TextBlock | ImageBlock) => {
    if (item.type === 'text') return item.text;
    warnings.push(
      adapterWarning(
        'image-as-text',
        `${path}: image in a tool result replaced by a text placeholder (Chat Completions tool messages are text-only)`,
        path,
      ),
    );
    return TOOL_IMAGE_PLACEHOLDER;
  });
  if (dialect.contentForm === 'string' || texts.length === 0) {
    return { role: 'tool', tool_call_id: block.toolUseId, content: texts.join('\n\n') };
  }
  const parts = texts.map((text, index) => {
    const part: ChatTextPart = { type: 'text', text };
    markable({ part, path: `${path}.content[${index}]`, zone, messageIndex });
    return part;
  });
  return { role: 'tool', tool_call_id: block.toolUseId, content: parts };
}

function userPart(block: Exclude<UserContentBlock, { type: 'tool_result' }>, path: string, warnings: AdapterWarning[]): ChatPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image_url', image_url: { url: mediaUrl(block.source) } };
    case 'document': {
      const source = block.source;
      if (source.kind === 'text') {
        return { type: 'text', text: block.title ? `${block.title}\n\n${source.data}` : source.data };
      }
      if (source.kind === 'base64') {
        return { type: 'file', file: { filename: block.title ?? 'document.pdf', file_data: mediaUrl(source) } };
      }
      warnings.push(
        adapterWarning(
          'document-url-as-text',
          `${path}: document URLs are not accepted by Chat Completions; sent as a text reference`,
          path,
        ),
      );
      return { type: 'text', text: `[document: ${source.url}]` };
    }
    default:
      return assertNever(block);
  }
}

/** A URL source as is, base64 as a `data:` URL: the form both OpenAI APIs take for images and files. */
export function mediaUrl(source: MediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

/** Returns true when the tail was merged into the final message ahead of the user's own text. */
function placeTail(
  items: readonly TailItem[],
  messages: ChatMessage[],
  lastUserMessage: ChatUserMessage | undefined,
  dialect: ChatDialect,
  warnings: AdapterWarning[],
): boolean {
  if (items.length === 0) return false;
  const before = items.filter((item) => item.position === 'before-user-text').map((item) => item.text);
  const end = items.filter((item) => item.position === 'end').map((item) => item.text);
  const ordered = [...before, ...end];
  const endsWithUserText = lastUserMessage !== undefined && messages.at(-1) === lastUserMessage;

  if (endsWithUserText && dialect.tailInTurn === 'merge-into-user') {
    mergeIntoUser(lastUserMessage, before, end);
    return before.length > 0;
  }
  if (endsWithUserText || dialect.tailInToolLoop === 'trailing-system') {
    messages.push(systemMessage(dialect.systemRole, ordered.join('\n\n')));
    return false;
  }
  if (dialect.tailInToolLoop === 'trailing-user') {
    messages.push({ role: 'user', content: dialect.contentForm === 'parts' ? ordered.map(textPart) : ordered.join('\n\n') });
    return false;
  }
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    last.content =
      typeof last.content === 'string'
        ? [last.content, ...ordered].join('\n\n')
        : [...last.content, ...ordered.map((text): ChatTextPart => ({ type: 'text', text }))];
    return false;
  }
  warnings.push(
    adapterWarning(
      'tail-as-user-message',
      'turn tail: the request does not end with user input or tool results; the tail is sent as a user message',
    ),
  );
  messages.push({ role: 'user', content: dialect.contentForm === 'parts' ? ordered.map(textPart) : ordered.join('\n\n') });
  return false;
}

function textPart(text: string): ChatTextPart {
  return { type: 'text', text };
}

function mergeIntoUser(message: ChatUserMessage, before: string[], end: string[]): void {
  if (typeof message.content === 'string') {
    message.content = [...before, message.content, ...end].join('\n\n');
    return;
  }
  message.content = [...before.map(textPart), ...message.content, ...end.map(textPart)];
}
