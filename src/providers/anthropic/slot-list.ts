import type { CacheControlEphemeral } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BlockRecord, CanonicalRequest } from '../../model/request.js';
import { requestReader } from '../../model/request-view.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { BreakpointSlot, SlotSequence } from './place-breakpoints.js';

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

/**
 * Entries in three parts: the list's own entries before a kept run of history, a prefix of that
 * run (shared between requests, never changed: a change goes into `overrides`), and the list's
 * own entries after it. A request takes a long history without copying it.
 */
class Segments<Entry> {
  private readonly before: Entry[] = [];
  private run: readonly Entry[] = [];
  private runCount = 0;
  private attached = false;
  private readonly after: Entry[] = [];
  private overrides: Map<number, Entry> | null = null;

  get length(): number {
    return this.before.length + this.runCount + this.after.length;
  }

  push(entry: Entry): void {
    (this.attached ? this.after : this.before).push(entry);
  }

  /** The first `count` entries of `run` follow the entries so far. */
  attach(run: readonly Entry[], count: number): void {
    this.run = run;
    this.runCount = count;
    this.attached = true;
  }

  at(index: number): Entry | undefined {
    if (index < 0) return undefined;
    if (index < this.before.length) return this.before[index];
    const inRun = index - this.before.length;
    if (inRun < this.runCount) return this.overrides?.get(index) ?? this.run[inRun];
    return this.after[inRun - this.runCount];
  }

  set(index: number, entry: Entry): void {
    if (index < this.before.length) this.before[index] = entry;
    else if (index - this.before.length < this.runCount) {
      this.overrides ??= new Map();
      this.overrides.set(index, entry);
    } else this.after[index - this.before.length - this.runCount] = entry;
  }

  /** Entries from `start` to the end, in a new array. */
  from(start: number): Entry[] {
    const entries: Entry[] = [];
    for (let index = start; index < this.length; index++) entries.push(this.at(index) as Entry);
    return entries;
  }
}

/** A kept run of history blocks as `SlotList.addRun` takes it; `cumulative[k]` is the tokens through its slot k. */
export interface SlotRun {
  slots: readonly BreakpointSlot[];
  targets: readonly Markable[];
  templateIndexes: readonly number[];
  cumulative: readonly number[];
}

/** Collects wire blocks together with the slot the breakpoint planner sees for each. */
export class SlotList {
  private readonly slotSegments = new Segments<BreakpointSlot>();
  private readonly targets = new Segments<Markable>();
  /** Where a shared (frozen) target sits, so a breakpoint replaces it with a marked copy. */
  private readonly owners = new Map<number, { array: unknown[]; index: number }>();
  /**
   * Per position, the index of a block of a shared message template in its message's content
   * (-1 for any other block): the wire message is `wireMessages[slot.messageIndex]`.
   */
  private readonly templateIndexes = new Segments<number>();
  private run: { cumulative: readonly number[]; start: number; count: number } | null = null;
  /** Position of the first turn-tail slot, -1 without one. */
  firstTailPosition = -1;
  /** The body's messages, one per canonical message, for marks on shared templates. */
  wireMessages: Array<{ content: unknown }> = [];
  /**
   * Indexes of the body's messages the breakpoint validator must visit: those not built from a
   * marker-free template, and (through `mark`) every marked one; the others are known clean.
   */
  readonly messagesToValidate: number[] = [];
  constructor(private readonly counter: TokenCounter) {}

  /** The slots in position order (`length`, `at`), a kept run included without a copy. */
  get slots(): SlotSequence {
    return this.slotSegments;
  }

  private ownSums: Float64Array | null = null;

  private tokenSums(): Float64Array {
    const sums = new Float64Array(this.slotSegments.length);
    let sum = 0;
    for (let index = 0; index < sums.length; index++) {
      sum += (this.slotSegments.at(index) as BreakpointSlot).tokens;
      sums[index] = sum;
    }
    return sums;
  }

  /** Sum of the slots' tokens before `end` (exclusive), added in position order. */
  tokensBefore(end: number): number {
    let sum = 0;
    for (let index = 0; index < end; index++) sum += (this.slotSegments.at(index) as BreakpointSlot).tokens;
    return sum;
  }

  /**
   * Tokens from the first slot through `position` (0 outside the slots), summed in position order
   * as `planBreakpoints` would: a kept run brings its sums, the other slots are few.
   */
  tokensThrough(position: number): number {
    if (position < 0 || position >= this.slotSegments.length) return 0;
    const run = this.run;
    if (run === null) {
      // No kept run: every slot is the list's own, summed once.
      this.ownSums ??= this.tokenSums();
      return this.ownSums[position] as number;
    }
    if (position < run.start) return this.tokensBefore(position + 1);
    if (position < run.start + run.count) return run.cumulative[position - run.start] as number;
    let sum = run.cumulative[run.count - 1] as number;
    for (let index = run.start + run.count; index <= position; index++)
      sum += (this.slotSegments.at(index) as BreakpointSlot).tokens;
    return sum;
  }

  /**
   * Follow the slots so far with the first `count` blocks of a run of shared template blocks built
   * by earlier requests (slots with their positions, targets, content indexes, running token sums
   * that start from the tokens before it): no copy and no work per block. Its first slot must sit
   * at the next position.
   */
  addRun(run: SlotRun, count: number): void {
    this.run = { cumulative: run.cumulative, start: this.slotSegments.length, count };
    this.slotSegments.attach(run.slots, count);
    this.targets.attach(run.targets, count);
    this.templateIndexes.attach(run.templateIndexes, count);
  }

  /** Slots, targets and content indexes from `start` on (what a run extends itself with). */
  entriesFrom(start: number): { slots: BreakpointSlot[]; targets: Markable[]; templateIndexes: number[] } {
    return {
      slots: this.slotSegments.from(start),
      targets: this.targets.from(start),
      templateIndexes: this.templateIndexes.from(start),
    };
  }

  add(target: Markable, slot: Omit<BreakpointSlot, 'position'>, owner?: { array: unknown[]; index: number }): void {
    // The slot literal is created by the caller for this call only; completing it in place
    // avoids a copy per block (thousands per request in long sessions).
    const position = this.slotSegments.length;
    (slot as BreakpointSlot).position = position;
    if (owner && Object.isFrozen(target)) this.owners.set(position, owner);
    if (slot.zone === 'tail' && this.firstTailPosition < 0) this.firstTailPosition = position;
    this.slotSegments.push(slot as BreakpointSlot);
    this.targets.push(target);
    this.templateIndexes.push(-1);
    this.ownSums = null;
  }

  /**
   * A block of a shared message template (frozen content array, frozen block), with its slot as
   * built already: its `position` must be the next one. A mark copies the array and the block.
   */
  addShared(target: Markable, slot: BreakpointSlot, contentIndex: number): void {
    this.slotSegments.push(slot);
    this.targets.push(target);
    this.templateIndexes.push(contentIndex);
    this.ownSums = null;
  }

  /** Put a breakpoint on the block at `position`: on a copy when the block is shared (frozen). */
  mark(position: number, marker: CacheControlEphemeral): void {
    const target = this.targets.at(position);
    if (!target) return;
    const messageIndex = this.slotSegments.at(position)?.messageIndex;
    if (messageIndex !== null && messageIndex !== undefined) this.messagesToValidate.push(messageIndex);
    const contentIndex = this.templateIndexes.at(position) ?? -1;
    const message = contentIndex >= 0 ? this.wireMessages[messageIndex ?? -1] : undefined;
    if (message && Array.isArray(message.content)) {
      const content = Object.isFrozen(message.content) ? message.content.slice() : message.content;
      const copy = { ...target, cache_control: marker };
      content[contentIndex] = copy;
      // A shared (frozen) wire message is replaced in this body by a copy holding the copied content.
      if (Object.isFrozen(message)) this.wireMessages[messageIndex as number] = { ...message, content };
      else message.content = content;
      this.targets.set(position, copy);
      return;
    }
    const owner = this.owners.get(position);
    if (!owner) {
      target.cache_control = marker;
      return;
    }
    const copy = { ...target, cache_control: marker };
    owner.array[owner.index] = copy;
    this.targets.set(position, copy);
  }

  /** `messagesToValidate` in ascending order, each once. */
  validationIndexes(): number[] {
    return [...new Set(this.messagesToValidate)].sort((left, right) => left - right);
  }

  count(item: Parameters<TokenCounter['countBlock']>[0]): number {
    return this.counter.countBlock(item);
  }
}
