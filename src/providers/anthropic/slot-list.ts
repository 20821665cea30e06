import type { CacheControlEphemeral } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BlockRecord, CanonicalRequest } from '../../model/request.js';
import { requestReader } from '../../model/request-view.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { BreakpointSlot } from './place-breakpoints.js';

export type Markable = { cache_control?: CacheControlEphemeral | null };

/**
 * The request's block records by path. The converter asks for them in the order `assemble()`
 * lists them (tools, system, messages), so a cursor finds each without a map of every path; a
 * path out of that order builds the map once.
 */
export class RecordLookup {
  private cursor = 0;
  private byPath: Map<string, number> | null = null;
  private readonly blockAt: (index: number) => BlockRecord | undefined;
  constructor(private readonly request: CanonicalRequest) {
    this.blockAt = requestReader(request).blockAt;
  }

  /** Index of the record the next in-order lookup expects. */
  get position(): number {
    return this.cursor;
  }

  /** Step over `count` records looked up in order elsewhere (a converted run of history). */
  skip(count: number): void {
    this.cursor += count;
  }

  get(path: string): BlockRecord | undefined {
    const next = this.blockAt(this.cursor);
    if (next !== undefined && next.path === path) {
      this.cursor++;
      return next;
    }
    if (this.byPath === null) this.byPath = new Map(this.request.blocks.map((record, index) => [record.path, index]));
    const index = this.byPath.get(path);
    if (index === undefined) return undefined;
    this.cursor = index + 1;
    return this.blockAt(index);
  }
}

/** Collects wire blocks together with the slot the breakpoint planner sees for each. */
export class SlotList {
  private slotArray: BreakpointSlot[] = [];
  private targetArray: Markable[] = [];
  /** Where a shared (frozen) target sits, so a breakpoint replaces it with a marked copy. */
  private readonly owners = new Map<number, { array: unknown[]; index: number }>();
  /**
   * Per position, the index of a block of a shared message template in its message's content
   * (-1 for any other block): the wire message is `wireMessages[slot.messageIndex]`.
   */
  private templateIndexes: number[] = [];
  /** The body's messages, one per canonical message, for marks on shared templates. */
  wireMessages: Array<{ content: unknown }> = [];
  /**
   * Indexes of the body's messages the breakpoint validator must visit: those not built from a
   * marker-free template, and (through `mark`) every marked one; the others are known clean.
   */
  readonly messagesToValidate: number[] = [];
  constructor(private readonly counter: TokenCounter) {}

  get slots(): readonly BreakpointSlot[] {
    return this.slotArray;
  }

  /**
   * Append the first `count` entries of a run of shared template blocks built by earlier
   * requests (slots with their positions, targets, content indexes): one copy per array instead
   * of a push per block. The run's first slot must sit at the next position.
   */
  addRun(
    run: { slots: readonly BreakpointSlot[]; targets: readonly Markable[]; templateIndexes: readonly number[] },
    count: number,
  ): void {
    const take = <Entry>(entries: readonly Entry[]) => (count === entries.length ? entries : entries.slice(0, count));
    this.slotArray = this.slotArray.concat(take(run.slots));
    this.targetArray = this.targetArray.concat(take(run.targets));
    this.templateIndexes = this.templateIndexes.concat(take(run.templateIndexes));
  }

  /** Slots, targets and content indexes from `start` on (what a run extends itself with). */
  entriesFrom(start: number): { slots: BreakpointSlot[]; targets: Markable[]; templateIndexes: number[] } {
    return {
      slots: this.slotArray.slice(start),
      targets: this.targetArray.slice(start),
      templateIndexes: this.templateIndexes.slice(start),
    };
  }

  add(target: Markable, slot: Omit<BreakpointSlot, 'position'>, owner?: { array: unknown[]; index: number }): void {
    // The slot literal is created by the caller for this call only; completing it in place
    // avoids a copy per block (thousands per request in long sessions).
    (slot as BreakpointSlot).position = this.slotArray.length;
    if (owner && Object.isFrozen(target)) this.owners.set(this.slotArray.length, owner);
    this.slotArray.push(slot as BreakpointSlot);
    this.targetArray.push(target);
    this.templateIndexes.push(-1);
  }

  /**
   * A block of a shared message template (frozen content array, frozen block), with its slot as
   * built already: its `position` must be the next one. A mark copies the array and the block.
   */
  addShared(target: Markable, slot: BreakpointSlot, contentIndex: number): void {
    this.slotArray.push(slot);
    this.targetArray.push(target);
    this.templateIndexes.push(contentIndex);
  }

  /** Put a breakpoint on the block at `position`: on a copy when the block is shared (frozen). */
  mark(position: number, marker: CacheControlEphemeral): void {
    const target = this.targetArray[position];
    if (!target) return;
    const messageIndex = this.slots[position]?.messageIndex;
    if (messageIndex !== null && messageIndex !== undefined) this.messagesToValidate.push(messageIndex);
    const contentIndex = this.templateIndexes[position] ?? -1;
    const message = contentIndex >= 0 ? this.wireMessages[this.slots[position]?.messageIndex ?? -1] : undefined;
    if (message && Array.isArray(message.content)) {
      const content = Object.isFrozen(message.content) ? message.content.slice() : message.content;
      const copy = { ...target, cache_control: marker };
      content[contentIndex] = copy;
      // A shared (frozen) wire message is replaced in this body by a copy holding the copied content.
      if (Object.isFrozen(message)) this.wireMessages[messageIndex as number] = { ...message, content };
      else message.content = content;
      this.targetArray[position] = copy;
      return;
    }
    const owner = this.owners.get(position);
    if (!owner) {
      target.cache_control = marker;
      return;
    }
    const copy = { ...target, cache_control: marker };
    owner.array[owner.index] = copy;
    this.targetArray[position] = copy;
  }

  /** `messagesToValidate` in ascending order, each once. */
  validationIndexes(): number[] {
    return [...new Set(this.messagesToValidate)].sort((left, right) => left - right);
  }

  count(item: Parameters<TokenCounter['countBlock']>[0]): number {
    return this.counter.countBlock(item);
  }
}
