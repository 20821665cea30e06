import { isMarkableBlock } from '../../cache/wire/markable-block.js';
import { isDeepFrozen } from '../../model/freeze.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a block sits: its zone, its message (messages only), its index in that list, its position. */
export interface BlockAt {
  zone: 'tools' | 'system' | 'messages';
  /** Index of the message holding the block (null for tools and system). */
  message: number | null;
  /** Index in its list (tools, system, or its message's content). */
  index: number;
  /** Position among the body's content blocks, in prefix order (tools, system, messages). */
  position: number;
}

/** What one pass over the body's blocks finds for the plan. */
export interface BlockScan {
  lastMarkable: Record<BlockAt['zone'], BlockAt | null>;
  /** The last markable block carrying a client marker, per zone (tools are not read for a tail). */
  lastMarked: Record<'system' | 'messages', BlockAt | null>;
  /**
   * The last markable message block at or before the previous request's last breakpoint;
   * undefined when the scan resumed from a checkpoint and did not look for it.
   */
  guard: BlockAt | null | undefined;
  /** Every block carrying a `cache_control` of its own (the client's markers, removed by the plan). */
  clientMarked: BlockAt[];
}

/** The planned body being built: the scan writes a string content as one text block there. */
export interface ScannedBody {
  readonly body: JsonRecord;
  textBlockContent(index: number, text: string): unknown[];
}

/**
 * What the scan found in a body's leading messages, to resume the next body's scan after them
 * when it holds the same message objects (deep-frozen: an object that cannot change scans alike).
 * Positions are counted from the first message's first block.
 */
export interface MessagesCheckpoint {
  /** Messages covered, each deep-frozen. */
  readonly messages: readonly unknown[];
  /** Blocks counted in them. */
  readonly blocks: number;
  readonly lastMarkable: BlockAt | null;
  readonly lastMarked: BlockAt | null;
  readonly clientMarked: readonly BlockAt[];
  /** Messages whose content is a non-empty string (written as one text block in every planned body). */
  readonly stringContents: readonly number[];
}

/** A candidate found so far, updated in place (a long history allocates nothing per block); position -1 when none. */
type Slot = BlockAt;
const emptySlot = (zone: BlockAt['zone']): Slot => ({ zone, message: null, index: -1, position: -1 });
const found = (slot: Slot): BlockAt | null => (slot.position < 0 ? null : slot);
function fill(slot: Slot, message: number | null, index: number, position: number): void {
  slot.message = message;
  slot.index = index;
  slot.position = position;
}
const shifted = (at: BlockAt | null, by: number): BlockAt | null => (at ? { ...at, position: at.position + by } : null);

/** The running state of one scan: the slots filled in place, positions from `base`. */
class ScanState {
  position = 0;
  readonly last = { tools: emptySlot('tools'), system: emptySlot('system'), messages: emptySlot('messages') };
  readonly marked = { system: emptySlot('system'), messages: emptySlot('messages') };
  readonly guard = emptySlot('messages');
  readonly clientMarked: BlockAt[] = [];
  readonly stringContents: number[] = [];

  /** `previous`: the previous request's last breakpoint, in this scan's positions (null: no guard). */
  constructor(private readonly previous: number | null) {}

  visit(list: readonly unknown[], zone: BlockAt['zone'], message: number | null): void {
    for (let index = 0; index < list.length; index++) {
      const block = list[index];
      if (!isRecord(block)) continue;
      const at = this.position++;
      if (Object.hasOwn(block, 'cache_control')) this.clientMarked.push({ zone, message, index, position: at });
      if (!isMarkableBlock(block, zone)) continue;
      fill(this.last[zone], message, index, at);
      if (zone !== 'tools' && isRecord(block.cache_control)) fill(this.marked[zone], message, index, at);
      if (zone === 'messages' && this.previous !== null && at <= this.previous) fill(this.guard, message, index, at);
    }
  }

  /** Messages `from` onwards; a string content becomes one text block of the planned body. */
  visitMessages(planned: ScannedBody, messages: readonly unknown[], from: number): void {
    for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
      const message = messages[messageIndex];
      if (!isRecord(message)) continue;
      let content = message.content;
      if (typeof content === 'string' && content.length > 0) {
        this.stringContents.push(messageIndex);
        content = planned.textBlockContent(messageIndex, content);
      }
      if (Array.isArray(content)) this.visit(content, 'messages', messageIndex);
    }
  }
}

/**
 * Every block of an Anthropic body in prefix order, once. A string system prompt or message
 * content becomes one text block in the planned body (the same tokens; the API reads both forms
 * alike) so it can carry a marker. Thinking blocks and empty text cannot carry one. Reads markers only.
 */
export function scanBlocks(planned: ScannedBody, previous: number | null): BlockScan {
  const body = planned.body;
  const state = new ScanState(previous);
  if (Array.isArray(body.tools)) state.visit(body.tools, 'tools', null);
  if (typeof body.system === 'string' && body.system.length > 0) body.system = [{ type: 'text', text: body.system }];
  if (Array.isArray(body.system)) state.visit(body.system, 'system', null);
  if (Array.isArray(body.messages)) state.visitMessages(planned, body.messages, 0);
  return {
    lastMarkable: { tools: found(state.last.tools), system: found(state.last.system), messages: found(state.last.messages) },
    lastMarked: { system: found(state.marked.system), messages: found(state.marked.messages) },
    guard: found(state.guard),
    clientMarked: state.clientMarked,
  };
}

/**
 * `scanBlocks`, resumed after the messages `checkpoint` covers when this body's leading messages
 * are those same objects (the proxy's `parseReusing` hands a conversation's repeated history on
 * as the previous body's frozen objects), so a long history is not walked again. The guard is not
 * looked for (`guard` undefined: scan whole when it is needed). Also returns the checkpoint of
 * this body's messages when every one is deep-frozen, else null.
 */
export function scanBlocksFrom(
  planned: ScannedBody,
  checkpoint: MessagesCheckpoint | null,
): { scan: BlockScan; checkpoint: MessagesCheckpoint | null } {
  const body = planned.body;
  const prefix = new ScanState(null);
  if (Array.isArray(body.tools)) prefix.visit(body.tools, 'tools', null);
  if (typeof body.system === 'string' && body.system.length > 0) body.system = [{ type: 'text', text: body.system }];
  if (Array.isArray(body.system)) prefix.visit(body.system, 'system', null);
  const messages: readonly unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const from = checkpoint && sameLeading(messages, checkpoint.messages) ? checkpoint : null;
  // Messages are counted from their own first block here, then shifted past tools and system.
  const state = new ScanState(null);
  if (from) {
    state.position = from.blocks;
    if (from.lastMarkable)
      fill(state.last.messages, from.lastMarkable.message, from.lastMarkable.index, from.lastMarkable.position);
    if (from.lastMarked) fill(state.marked.messages, from.lastMarked.message, from.lastMarked.index, from.lastMarked.position);
    for (const at of from.clientMarked) state.clientMarked.push(at);
    for (const index of from.stringContents) {
      state.stringContents.push(index);
      planned.textBlockContent(index, (messages[index] as JsonRecord).content as string);
    }
  }
  const start = from ? from.messages.length : 0;
  state.visitMessages(planned, messages, start);
  let frozen = true;
  for (let index = start; index < messages.length && frozen; index++) frozen = isDeepFrozen(messages[index]);
  const base = prefix.position;
  const scan: BlockScan = {
    lastMarkable: {
      tools: found(prefix.last.tools),
      system: found(prefix.last.system),
      messages: shifted(found(state.last.messages), base),
    },
    lastMarked: { system: found(prefix.marked.system), messages: shifted(found(state.marked.messages), base) },
    guard: undefined,
    clientMarked: [...prefix.clientMarked, ...state.clientMarked.map((at) => shifted(at, base)!)],
  };
  const next: MessagesCheckpoint | null = frozen
    ? {
        messages,
        blocks: state.position,
        lastMarkable: shifted(found(state.last.messages), 0),
        lastMarked: shifted(found(state.marked.messages), 0),
        clientMarked: state.clientMarked,
        stringContents: state.stringContents,
      }
    : null;
  return { scan, checkpoint: next };
}

/** Whether `messages` starts with `covered`'s objects, in order. */
function sameLeading(messages: readonly unknown[], covered: readonly unknown[]): boolean {
  if (messages.length < covered.length) return false;
  for (let index = 0; index < covered.length; index++) if (messages[index] !== covered[index]) return false;
  return true;
}
