import { isRecord, type JsonRecord } from '../cache/wire/json-helpers.js';

/** Where a library puts `cache_control` on an Anthropic Messages body. */
export interface AnthropicMarkerPlacement {
  /** Mark the last tool definition (pi-ai). */
  lastTool?: boolean;
  /** Mark the first `systemBlocks` system blocks. */
  systemBlocks?: number;
  /** Mark the last block of these messages (wire indices), if it may carry a marker. */
  messages?: readonly number[];
  /** Only blocks of these types take a message marker (pi-ai marks text, image and tool_result only). */
  messageBlockTypes?: readonly string[];
  /** Send top-level automatic caching (`cache_control` on the request). */
  automatic?: boolean;
  /** Send single-text user messages without a marker as plain strings (pi-ai keeps user text as a string). */
  plainStringUserText?: boolean;
  /** At most this many markers; past it the newest are dropped, as `@ai-sdk/anthropic` does. */
  limit?: number;
}

const MARKER = { type: 'ephemeral' } as const;

/**
 * Re-mark an Anthropic Messages body the way a library would: every existing marker is
 * removed, then markers go where `placement` says. Returns a new body; the input is unchanged.
 */
export function placeAnthropicMarkers(body: unknown, placement: AnthropicMarkerPlacement): unknown {
  if (!isRecord(body)) return body;
  const { cache_control: _automatic, ...rest } = body;
  const copy: JsonRecord = { ...rest };
  const tools = Array.isArray(copy.tools) ? copy.tools.map(unmarked) : undefined;
  let system: unknown = copy.system;
  if (typeof system === 'string') system = [{ type: 'text', text: system }];
  const systemBlocks = Array.isArray(system) ? system.map(unmarked) : undefined;
  const messages = (Array.isArray(copy.messages) ? copy.messages : []).map((message) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return message;
    return { ...message, content: message.content.map(unmarked) };
  });
  let budget = placement.limit ?? Number.POSITIVE_INFINITY;
  // Blocks without a marker are the input's own objects (history blocks are shared between
  // bodies, frozen): a marker goes on a copy put in their place.
  const mark = (list: unknown[], index: number): boolean => {
    const block = list[index];
    if (!isRecord(block) || budget <= 0) return false;
    list[index] = { ...block, cache_control: { ...MARKER } };
    budget--;
    return true;
  };
  if (placement.lastTool && tools && tools.length > 0) mark(tools, tools.length - 1);
  if (systemBlocks)
    for (let index = 0; index < Math.min(placement.systemBlocks ?? 0, systemBlocks.length); index++) mark(systemBlocks, index);
  if (placement.automatic && budget > 0) {
    copy.cache_control = { ...MARKER };
    budget--;
  }
  const marked = new Set<number>();
  for (const index of placement.messages ?? []) {
    const message = messages[index];
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    const last = message.content.at(-1);
    if (!isRecord(last)) continue;
    if (placement.messageBlockTypes && !placement.messageBlockTypes.includes(String(last.type))) continue;
    if (last.type === 'thinking' || last.type === 'redacted_thinking') continue;
    if (mark(message.content, message.content.length - 1)) marked.add(index);
  }
  if (placement.plainStringUserText) {
    messages.forEach((message, index) => {
      if (!isRecord(message) || message.role !== 'user' || marked.has(index) || !Array.isArray(message.content)) return;
      const [only] = message.content;
      if (message.content.length === 1 && isRecord(only) && only.type === 'text' && typeof only.text === 'string') {
        messages[index] = { ...message, content: only.text };
      }
    });
  }
  if (tools) copy.tools = tools;
  if (systemBlocks) copy.system = systemBlocks;
  copy.messages = messages;
  return copy;
}

function unmarked(block: unknown): unknown {
  if (!isRecord(block) || !Object.hasOwn(block, 'cache_control')) return block;
  const { cache_control: _removed, ...rest } = block;
  return rest;
}
