import { canonicalJson } from '../model/canonical-json.js';
import type { Message, ToolResultBlock, UserContentBlock } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { ToolResultRef } from './history-analysis.js';
import { filterToolResult, type HeadTailLimits } from './ingestion-filter.js';
import { duplicatePlaceholder, isPlaceholder, maskPlaceholder, restoreIdsIn } from './markers.js';
import { type OffloadRecord, restoreIdFor } from './offload-store.js';

/** Content a planned rewrite takes out, with what stays in its place (for `context.offloaded`). */
export interface PlannedOffload {
  record: OffloadRecord;
  keptTokens: number;
}

/** Offloads a rewrite needs, collected while it is planned and written before it is applied. */
export interface RewriteContext {
  sessionId: string;
  counter: TokenCounter;
  offloads: PlannedOffload[];
}

/** Replace one tool result of a history (copy on write: persisted messages are frozen). */
export function replaceToolResult(history: Message[], ref: ToolResultRef, block: ToolResultBlock): void {
  const message = history[ref.messageIndex];
  if (message?.role !== 'user') throw new Error(`no user message at ${ref.messageIndex}`);
  const content: UserContentBlock[] = message.content.slice();
  content[ref.blockIndex] = block;
  history[ref.messageIndex] = { role: 'user', content };
  ref.block = block;
}

/** True when a result is already a placeholder and has nothing left to give. */
export function isMasked(block: ToolResultBlock): boolean {
  return block.content.length === 1 && block.content[0]?.type === 'text' && isPlaceholder(block.content[0].text);
}

/**
 * Observation masking: the result's content becomes a one-line placeholder naming a restore
 * id; the content is offloaded first. Returns the tokens saved.
 */
export function maskToolResult(history: Message[], ref: ToolResultRef, context: RewriteContext, reason: string): number {
  if (isMasked(ref.block)) return 0;
  const restoreId = restoreIdFor(ref.block.content);
  const earlier = ref.block.content.flatMap((inner) => (inner.type === 'text' ? restoreIdsIn(inner.text) : []));
  const masked: ToolResultBlock = {
    ...ref.block,
    content: [{ type: 'text', text: maskPlaceholder(restoreId, ref.tokens, earlier) }],
  };
  const after = context.counter.countBlock(masked);
  context.offloads.push({
    record: {
      id: restoreId,
      sessionId: context.sessionId,
      toolUseId: ref.toolUseId,
      reason,
      content: ref.block.content,
      originalTokens: ref.tokens,
    },
    keptTokens: after,
  });
  replaceToolResult(history, ref, masked);
  const saved = ref.tokens - after;
  ref.tokens = after;
  return saved;
}

/**
 * Light layer, part 1: repeated reads. An older result with the same tool, input and output as
 * a later one becomes a pointer to the later call. Returns the tokens saved.
 */
export function dedupeRepeatedReads(
  history: Message[],
  refs: ToolResultRef[],
  beforeIndex: number,
  context: RewriteContext,
): number {
  const latest = new Map<string, string>();
  let saved = 0;
  for (let index = refs.length - 1; index >= 0; index--) {
    const ref = refs[index] as ToolResultRef;
    if (isMasked(ref.block) || ref.block.isError) continue;
    const key = canonicalJson([ref.toolName, ref.toolInput, ref.block.content] as unknown as JsonValue);
    const later = latest.get(key);
    if (later === undefined) {
      latest.set(key, ref.toolUseId);
      continue;
    }
    if (ref.messageIndex >= beforeIndex || ref.priority === 'critical') continue;
    const restoreId = restoreIdFor(ref.block.content);
    const replaced: ToolResultBlock = { ...ref.block, content: [{ type: 'text', text: duplicatePlaceholder(restoreId, later) }] };
    const after = context.counter.countBlock(replaced);
    context.offloads.push({
      record: {
        id: restoreId,
        sessionId: context.sessionId,
        toolUseId: ref.toolUseId,
        reason: 'light',
        content: ref.block.content,
        originalTokens: ref.tokens,
      },
      keptTokens: after,
    });
    replaceToolResult(history, ref, replaced);
    if (ref.tokens > after) saved += ref.tokens - after;
    ref.tokens = after;
  }
  return saved;
}

/** Light layer, part 2: large old results become head + tail, the original offloaded. */
export function truncateLargeResults(
  history: Message[],
  refs: ToolResultRef[],
  beforeIndex: number,
  limits: HeadTailLimits,
  context: RewriteContext,
): number {
  let saved = 0;
  for (const ref of refs) {
    if (ref.messageIndex >= beforeIndex || ref.priority === 'critical' || isMasked(ref.block)) continue;
    if (ref.tokens <= limits.thresholdTokens) continue;
    const result = filterToolResult(ref.block, limits, context.counter, { sessionId: context.sessionId, reason: 'light' });
    if (!result.offloaded || result.keptTokens >= ref.tokens) continue;
    context.offloads.push({ record: result.offloaded, keptTokens: result.keptTokens });
    replaceToolResult(history, ref, result.block);
    saved += ref.tokens - result.keptTokens;
    ref.tokens = result.keptTokens;
  }
  return saved;
}
