import { hashOf } from '../model/hash.js';
import type { CountableItem } from './token-counter.js';

/** Entries kept before a memo starts over; bounds memory in long-lived processes with many sessions. */
const MAX_ENTRIES = 200_000;

/**
 * A memo keyed by block hash: blocks with the same canonical bytes share one entry, whatever
 * object or session they come from. `hashOf` is itself memoised per object, so a block seen
 * before costs two map lookups.
 */
export class BlockMemo<Value> {
  private readonly entries = new Map<string, Value>();

  get(item: CountableItem, compute: (item: CountableItem) => Value): Value {
    const key = hashOf(item as Parameters<typeof hashOf>[0]);
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    const value = compute(item);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
