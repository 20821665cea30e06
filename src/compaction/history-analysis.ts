import { canonicalJson } from '../model/canonical-json.js';
import type { Message, ToolResultBlock } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { messageTokens } from './request-tokens.js';
import { SESSION_NOTE_TOOL } from './tools.js';

/**
 * Priority of content when compressing: `critical` is never compressed (user instructions,
 * active errors, session notes), `important` goes last (recent tool results), `standard` first.
 */
export type Priority = 'critical' | 'important' | 'standard';

export interface ToolResultRef {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  toolName: string;
  /** The tool input of the matching call, for summaries and duplicate detection. */
  toolInput: unknown;
  block: ToolResultBlock;
  tokens: number;
  priority: Priority;
  /** An error result not yet followed by a success of the same tool. */
  activeError: boolean;
}

/** True for a user message that starts a turn (carries something other than tool results). */
export function isTurnStart(message: Message): boolean {
  return message.role === 'user' && message.content.some((block) => block.type !== 'tool_result');
}

/**
 * Where a history may be cut so that what follows is valid on its own: an assistant message
 * (its tool calls are answered after it) or a user message that starts a turn (no orphan results).
 */
export function isValidCut(message: Message): boolean {
  return message.role === 'assistant' || isTurnStart(message);
}

/**
 * Index where the protected tail starts: the most recent messages fitting `budgetTokens`, moved
 * forward to a valid cut. The last message (with the call its results answer) is always in the tail.
 */
export function protectedTailStart(history: readonly Message[], counter: TokenCounter, budgetTokens: number): number {
  let lastValidCut = -1;
  for (let index = history.length - 1; index >= 0; index--) {
    if (isValidCut(history[index] as Message)) {
      lastValidCut = index;
      break;
    }
  }
  if (lastValidCut === -1) return 0;
  let used = 0;
  let start = history.length;
  for (let index = history.length - 1; index >= 0; index--) {
    used += messageTokens(history[index] as Message, counter);
    if (used > budgetTokens) break;
    start = index;
  }
  while (start < history.length && !isValidCut(history[start] as Message)) start++;
  return Math.min(start, lastValidCut);
}

/** Tool results of a history with their priority, in history order. */
export function classifyToolResults(
  history: readonly Message[],
  counter: TokenCounter,
  options: { tailStart: number; importantRecentTurns: number },
): ToolResultRef[] {
  const calls = new Map<string, { name: string; input: unknown }>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content)
      if (block.type === 'tool_use') calls.set(block.id, { name: block.name, input: block.input });
  }
  // Turn starts before the tail, newest first: results after the Nth newest are important.
  const turnStarts: number[] = [];
  for (let index = options.tailStart - 1; index >= 0 && turnStarts.length < options.importantRecentTurns; index--) {
    if (isTurnStart(history[index] as Message)) turnStarts.push(index);
  }
  const importantFrom = turnStarts.length === options.importantRecentTurns ? (turnStarts.at(-1) ?? 0) : 0;
  const refs: ToolResultRef[] = [];
  history.forEach((message, messageIndex) => {
    if (message.role !== 'user') return;
    message.content.forEach((block, blockIndex) => {
      if (block.type !== 'tool_result') return;
      const call = calls.get(block.toolUseId);
      refs.push({
        messageIndex,
        blockIndex,
        toolUseId: block.toolUseId,
        toolName: call?.name ?? 'unknown',
        toolInput: call?.input ?? null,
        block,
        tokens: counter.countBlock(block),
        priority: 'standard',
        activeError: false,
      });
    });
  });
  const succeededLater = new Set<string>();
  for (let index = refs.length - 1; index >= 0; index--) {
    const ref = refs[index] as ToolResultRef;
    if (ref.block.isError) ref.activeError = !succeededLater.has(ref.toolName);
    else succeededLater.add(ref.toolName);
    if (ref.activeError || ref.toolName === SESSION_NOTE_TOOL.name) ref.priority = 'critical';
    else if (ref.messageIndex >= importantFrom && options.importantRecentTurns > 0) ref.priority = 'important';
  }
  return refs;
}

/** Every user-authored text of a history, in order: user instructions, never compressed. */
export function userInstructions(history: readonly Message[]): string[] {
  const texts: string[] = [];
  for (const message of history) {
    if (message.role !== 'user') continue;
    for (const block of message.content)
      if (block.type === 'text' && !block.text.startsWith(SUMMARY_HEADER)) texts.push(block.text);
  }
  return texts;
}

/** The assistant's reply after the summary message (when the tail starts with a user turn). */
export const SUMMARY_ACK = 'Understood. I will continue from this context.';

/** First line of the message Cachet writes in place of summarised history. */
export const SUMMARY_HEADER = '[CONTEXT] Summary of the earlier conversation';

/** Index of the first message that differs (by identity, then by bytes); the shorter length if one is a prefix. */
export function firstDifference(before: readonly Message[], after: readonly Message[]): number {
  const length = Math.min(before.length, after.length);
  for (let index = 0; index < length; index++) {
    const left = before[index];
    const right = after[index];
    if (left === right) continue;
    if (canonicalJson(left as unknown as JsonValue) !== canonicalJson(right as unknown as JsonValue)) return index;
  }
  return before.length === after.length ? Number.POSITIVE_INFINITY : length;
}

/** True when a message is the `[CONTEXT]` summary Cachet wrote. */
export function isSummaryMessage(message: Message): boolean {
  return isTurnStart(message) && message.content[0]?.type === 'text' && message.content[0].text.startsWith(SUMMARY_HEADER);
}
