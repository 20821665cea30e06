import type { Zone } from '../../model/request.js';

/**
 * One position of the wire request that the cache counts: a tool definition, a system block or
 * a top-level message content block, in wire order (tools, system, messages).
 */
export interface BreakpointSlot {
  position: number;
  /** Canonical path (`tools[0]`, `system[1]`, `messages[4].content[2]`, `tail[0]`) or `padding[k]`. */
  path: string;
  zone: Zone;
  /** Index of the canonical message the block belongs to; null for tools, system and tail. */
  messageIndex: number | null;
  /** The canonical prefix hash through this block (null for padding and tail blocks). */
  prefixHash: string | null;
  /** False for thinking, redacted thinking and empty text: the API rejects markers there. */
  cacheable: boolean;
  /** Estimated tokens of the block. */
  tokens: number;
}

/** Slots in position order: an array, or a converter's list that holds a kept history without copying it. */
export interface SlotSequence {
  readonly length: number;
  at(index: number): BreakpointSlot | undefined;
}

/** The slot at `index`; undefined outside the slots (never counted from the end). */
export function slotAt(slots: SlotSequence, index: number): BreakpointSlot | undefined {
  return index >= 0 ? slots.at(index) : undefined;
}

/** Previous entries sit near the end of the request, so search backwards. */
export function findFromEnd(slots: SlotSequence, path: string): BreakpointSlot | undefined {
  for (let index = slots.length - 1; index >= 0; index--) if (slots.at(index)?.path === path) return slots.at(index);
  return undefined;
}

/** Tokens through each position, summed once in position order (0 outside the slots). */
export function runningTokens(slots: SlotSequence): (position: number) => number {
  const sums = new Float64Array(slots.length);
  let sum = 0;
  for (let index = 0; index < slots.length; index++) {
    sum += (slots.at(index) as BreakpointSlot).tokens;
    sums[index] = sum;
  }
  return (position) => sums[position] ?? 0;
}

export function firstTailOf(slots: SlotSequence): number {
  for (let index = 0; index < slots.length; index++) if (slots.at(index)?.zone === 'tail') return index;
  return -1;
}

export function lastIndexWhile(slots: SlotSequence, end: number, predicate: (slot: BreakpointSlot) => boolean): number {
  let index = -1;
  while (index + 1 <= end && predicate(slots.at(index + 1) as BreakpointSlot)) index++;
  return index;
}

/** The last system block at or before `end` (-1 without one): the end of the system level. */
export function lastSystemSlot(slots: SlotSequence, end: number): number {
  for (let index = end; index >= 0; index--) if (slots.at(index)?.path.startsWith('system[')) return index;
  return -1;
}

export function lastCacheableAtOrBefore(slots: SlotSequence, start: number): number {
  for (let index = start; index >= 0; index--) if (slots.at(index)?.cacheable) return index;
  return -1;
}
