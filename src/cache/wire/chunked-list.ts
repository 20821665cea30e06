/**
 * Entries per chunk. A list that parts from another inside a chunk copies that chunk, and a
 * session's next request parts from the last one inside its newest chunk on almost every
 * request: the copy (and the array growth that follows it) lives until the conversation's next
 * request, so with many conversations interleaved (a capture) it is promoted to the old
 * generation. With 512 entries a 200-message conversation copied its whole history per request;
 * with 64 the copy is at most 64 entries and the chunk directory (history ÷ 64) stays smaller
 * than one 512-entry chunk up to 32k entries.
 */
const CHUNK_BITS = 6;
/** Entries per chunk (exported for tests that cross a chunk boundary). */
export const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;

/** What the per-request passes read of a list: an array or a `ChunkedList`. */
export interface IndexedList<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

/**
 * An immutable list that shares its storage with the list it was built from. A session's next
 * request repeats the previous one's units, token counts and prefix hashes up to its newest
 * change: copying a flat array of the whole history per request made the cost per request grow
 * with the history (past about 16k entries V8 allocates every copy as a large object). Entries
 * live in fixed-size chunks; a list built from another shares every chunk below the point where
 * they part, so building one costs the chunk directory (history ÷ 64) plus what changed.
 *
 * A chunk may hold entries past a list's length, appended by a later list built from it: a list
 * reads only below its own length, and an entry once written is never changed (a builder copies
 * a chunk before it writes below that chunk's end).
 */
export class ChunkedList<T> implements IndexedList<T> {
  private constructor(
    private readonly chunks: readonly T[][],
    readonly length: number,
  ) {}

  /** A list of `values` (copied). */
  static of<T>(values: readonly T[]): ChunkedList<T> {
    const builder = new ChunkedListBuilder<T>([], 0);
    for (const value of values) builder.push(value);
    return builder.done();
  }

  static empty<T>(): ChunkedList<T> {
    return new ChunkedList<T>([], 0);
  }

  /** Entry `index`; negative counts from the end (as `Array.prototype.at`); undefined outside the list. */
  at(index: number): T | undefined {
    const at = index < 0 ? index + this.length : index;
    if (at < 0 || at >= this.length) return undefined;
    return this.chunks[at >>> CHUNK_BITS]![at & CHUNK_MASK];
  }

  /** A builder holding this list's first `length` entries, to push further entries onto. */
  extend(length: number = this.length): ChunkedListBuilder<T> {
    const kept = Math.max(0, Math.min(length, this.length));
    return new ChunkedListBuilder(this.chunks.slice(0, (kept + CHUNK_MASK) >>> CHUNK_BITS), kept);
  }

  /** A plain array of the entries (one copy). */
  toArray(): T[] {
    const values = new Array<T>(this.length);
    for (let index = 0; index < this.length; index++) values[index] = this.chunks[index >>> CHUNK_BITS]![index & CHUNK_MASK]!;
    return values;
  }

  /** Whether entry `index` of both lists lives in the very same storage (tests check that nothing is copied). */
  sharesStorageAt(other: ChunkedList<T>, index: number): boolean {
    return (
      index < this.length && index < other.length && this.chunks[index >>> CHUNK_BITS] === other.chunks[index >>> CHUNK_BITS]
    );
  }

  /**
   * Where the storage both lists share from `index` on ends: the end of `index`'s chunk (within
   * both lists) when they hold the very same chunk there, else `index`. Below it their entries are
   * the same values.
   */
  sharedStorageEnd(other: ChunkedList<T>, index: number): number {
    if (!this.sharesStorageAt(other, index)) return index;
    return Math.min(this.length, other.length, ((index >>> CHUNK_BITS) + 1) << CHUNK_BITS);
  }

  /** Builders write chunks they own; the list they return reads them. */
  static fromBuilder<T>(chunks: readonly T[][], length: number): ChunkedList<T> {
    return new ChunkedList(chunks, length);
  }
}

/** Builds a `ChunkedList` from a shared prefix: `push` appends, `set` replaces (copying a shared chunk first). */
export class ChunkedListBuilder<T> {
  /** Chunks this builder made or copied: it may write anywhere in them. */
  private readonly owned = new Set<T[]>();

  constructor(
    private chunks: T[][],
    private size: number,
  ) {}

  get length(): number {
    return this.size;
  }

  at(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    return this.chunks[index >>> CHUNK_BITS]![index & CHUNK_MASK];
  }

  push(value: T): void {
    const chunkIndex = this.size >>> CHUNK_BITS;
    const offset = this.size & CHUNK_MASK;
    if (offset === 0) {
      const chunk = [value];
      this.owned.add(chunk);
      this.chunks[chunkIndex] = chunk;
    } else {
      let chunk = this.chunks[chunkIndex]!;
      // A shared chunk that holds entries past this point belongs to a list that reads them: copy it.
      // One that ends here can take the entry in place (no list reads past its own length).
      if (chunk.length !== offset) chunk = this.own(chunkIndex, offset);
      chunk.push(value);
    }
    this.size++;
  }

  set(index: number, value: T): void {
    if (index < 0 || index >= this.size)
      throw new RangeError(`ChunkedListBuilder.set: index ${index} outside 0..${this.size - 1}`);
    const chunkIndex = index >>> CHUNK_BITS;
    const chunk = this.chunks[chunkIndex]!;
    if (chunk[index & CHUNK_MASK] === value) return;
    const used = Math.min(CHUNK_SIZE, this.size - (chunkIndex << CHUNK_BITS));
    this.own(chunkIndex, used)[index & CHUNK_MASK] = value;
  }

  /** The list built so far. The builder must not be used afterwards (the list shares its chunks). */
  done(): ChunkedList<T> {
    const list = ChunkedList.fromBuilder(this.chunks, this.size);
    this.chunks = [];
    this.size = 0;
    this.owned.clear();
    return list;
  }

  /** Chunk `chunkIndex` as this builder's own, its first `used` entries copied when it is shared. */
  private own(chunkIndex: number, used: number): T[] {
    const chunk = this.chunks[chunkIndex]!;
    if (this.owned.has(chunk)) {
      if (chunk.length > used) chunk.length = used;
      return chunk;
    }
    const copy = chunk.slice(0, used);
    this.owned.add(copy);
    this.chunks[chunkIndex] = copy;
    return copy;
  }
}
