/**
 * A map bounded to `2 × generationSize` entries that forgets the least recently used ones in
 * bulk: when the current generation is full it becomes the old one and the oldest is dropped;
 * an entry read from the old generation moves to the current one. A memo that starts over when
 * full instead makes every live session's next request recount its whole history at once; with
 * two generations the entries a session read or wrote lately survive.
 */
export class TwoGenerationMap<Key, Value> {
  private current = new Map<Key, Value>();
  private previous = new Map<Key, Value>();

  constructor(private readonly generationSize: number) {}

  get(key: Key): Value | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: Key, value: Value): void {
    if (this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  /** Entries held (an entry moved up may be counted in both generations). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
