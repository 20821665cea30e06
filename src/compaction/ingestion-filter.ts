import type { ImageBlock, Message, TextBlock, ToolResultBlock } from '../model/content.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { truncationMarker } from './markers.js';
import { type OffloadRecord, restoreIdFor } from './offload-store.js';

export interface HeadTailLimits {
  thresholdTokens: number;
  headTokens: number;
  tailTokens: number;
}

export interface FilteredToolResult {
  block: ToolResultBlock;
  /** The full original output, to be offloaded; null when the block was small enough. */
  offloaded: OffloadRecord | null;
  keptTokens: number;
}

/**
 * Keep a large tool output as head + marker + tail. The marker names a restore id; the whole
 * original content goes into the returned record (offload it before the block is used).
 */
export function filterToolResult(
  block: ToolResultBlock,
  limits: HeadTailLimits,
  counter: TokenCounter,
  context: { sessionId: string; reason: string },
): FilteredToolResult {
  const originalTokens = counter.countBlock(block);
  const texts = block.content.filter((inner): inner is TextBlock => inner.type === 'text');
  const largest = texts.reduce((best, inner) => Math.max(best, counter.countText(inner.text)), 0);
  if (largest <= limits.thresholdTokens) return { block, offloaded: null, keptTokens: originalTokens };
  const restoreId = restoreIdFor(block.content);
  const content = block.content.map((inner): TextBlock | ImageBlock => {
    if (inner.type !== 'text') return inner;
    const tokens = counter.countText(inner.text);
    if (tokens <= limits.thresholdTokens) return inner;
    return { type: 'text', text: headAndTail(inner.text, tokens, limits, restoreId) };
  });
  const filtered: ToolResultBlock = { ...block, content };
  return {
    block: filtered,
    offloaded: {
      id: restoreId,
      sessionId: context.sessionId,
      toolUseId: block.toolUseId,
      reason: context.reason,
      content: block.content,
      originalTokens,
    },
    keptTokens: counter.countBlock(filtered),
  };
}

/** Apply `filterToolResult` to every tool result of a user message, except the exempt calls (restores the agent asked for). */
export function filterMessage(
  message: Message,
  limits: HeadTailLimits,
  counter: TokenCounter,
  context: { sessionId: string; reason: string; exemptToolUseIds?: ReadonlySet<string> },
): { message: Message; results: FilteredToolResult[] } {
  if (message.role !== 'user') return { message, results: [] };
  const results: FilteredToolResult[] = [];
  const content = message.content.map((block) => {
    if (block.type !== 'tool_result' || context.exemptToolUseIds?.has(block.toolUseId)) return block;
    const result = filterToolResult(block, limits, counter, context);
    if (result.offloaded) results.push(result);
    return result.block;
  });
  return { message: results.length > 0 ? { role: 'user', content } : message, results };
}

function headAndTail(text: string, tokens: number, limits: HeadTailLimits, restoreId: string): string {
  const charsPerToken = text.length / tokens;
  let headEnd = snapToLineEnd(text, Math.floor(limits.headTokens * charsPerToken));
  let tailStart = snapToLineStart(text, text.length - Math.floor(limits.tailTokens * charsPerToken));
  if (tailStart <= headEnd) tailStart = headEnd;
  headEnd = safeIndex(text, headEnd);
  tailStart = safeIndex(text, tailStart);
  return (
    text.slice(0, headEnd) + truncationMarker(restoreId, limits.headTokens, limits.tailTokens, tokens) + text.slice(tailStart)
  );
}

/** Cut after a newline close to the limit (within the last fifth) so lines stay whole. */
function snapToLineEnd(text: string, limit: number): number {
  const newline = text.lastIndexOf('\n', limit);
  return newline >= limit * 0.8 ? newline + 1 : limit;
}
function snapToLineStart(text: string, start: number): number {
  const newline = text.indexOf('\n', start);
  return newline !== -1 && newline - start <= (text.length - start) * 0.2 ? newline + 1 : start;
}
/** Never split a UTF-16 surrogate pair. */
function safeIndex(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}
