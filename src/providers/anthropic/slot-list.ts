import type { CacheControlEphemeral } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BlockRecord, CanonicalRequest } from '../../model/request.js';
import { requestBlockAt } from '../../model/request-view.js';
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
  constructor(private readonly request: CanonicalRequest) {}

  get(path: string): BlockRecord | undefined {
    const next = requestBlockAt(this.request, this.cursor);
    if (next !== undefined && next.path === path) {
      this.cursor++;
      return next;
    }
    if (this.byPath === null) this.byPath = new Map(this.request.blocks.map((record, index) => [record.path, index]));
    const index = this.byPath.get(path);
    if (index === undefined) return undefined;
    this.cursor = index + 1;
    return requestBlockAt(this.request, index);
  }
}

/** Collects wire blocks together with the slot the breakpoint planner sees for each. */
export class SlotList {
  readonly slots: BreakpointSlot[] = [];
  readonly targets: Markable[] = [];
  /** Where a shared (frozen) target sits, so a breakpoint replaces it with a marked copy. */
  private readonly owners = new Map<number, { array: unknown[]; index: number }>();
  constructor(private readonly counter: TokenCounter) {}

  add(target: Markable, slot: Omit<BreakpointSlot, 'position'>, owner?: { array: unknown[]; index: number }): void {
    // The slot literal is created by the caller for this call only; completing it in place
    // avoids a copy per block (thousands per request in long sessions).
    (slot as BreakpointSlot).position = this.slots.length;
    if (owner && Object.isFrozen(target)) this.owners.set(this.slots.length, owner);
    this.slots.push(slot as BreakpointSlot);
    this.targets.push(target);
  }

  /** Put a breakpoint on the block at `position`: on a copy when the block is shared (frozen). */
  mark(position: number, marker: CacheControlEphemeral): void {
    const target = this.targets[position];
    if (!target) return;
    const owner = this.owners.get(position);
    if (!owner) {
      target.cache_control = marker;
      return;
    }
    const copy = { ...target, cache_control: marker };
    owner.array[owner.index] = copy;
    this.targets[position] = copy;
  }

  count(item: Parameters<TokenCounter['countBlock']>[0]): number {
    return this.counter.countBlock(item);
  }
}
