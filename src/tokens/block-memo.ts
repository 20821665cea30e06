import { hashOf } from '../model/hash.js';
import type { CountableItem } from './token-counter.js';
import { TwoGenerationMap } from './two-generation-map.js';

/** Entries per generation (at most twice this are kept); bounds memory in long-lived processes with many sessions. */
const GENERATION_ENTRIES = 100_000;

/**
 * A memo keyed by block hash: blocks with the same canonical bytes share one entry, whatever
 * object or session they come from. `hashOf` is itself memoised per object, so a block seen
 * before costs two map lookups.
 */
export class BlockMemo<Value> {
  private readonly entries = new TwoGenerationMap<string, Value>(GENERATION_ENTRIES);

  get(item: CountableItem, compute: (item: CountableItem) => Value): Value {
    const key = hashOf(item as Parameters<typeof hashOf>[0]);
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    const value = compute(item);
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
