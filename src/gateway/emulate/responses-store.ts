/** Default budget of the emulator's Responses store: 256 MiB of stored JSON. */
export const DEFAULT_RESPONSES_STORE_BYTES = 256 * 1024 * 1024;

/** What the Responses store holds and has dropped, for tests and the emulator's stats. */
export interface ResponsesStoreStats {
  entries: number;
  /** UTF-8 bytes of the stored items' JSON. */
  bytes: number;
  maxBytes: number;
  /** Responses dropped (oldest first) to stay within `maxBytes`, plus those too large to keep at all. */
  evictions: number;
}

/**
 * The Responses API conversations kept for `previous_response_id`, bounded by bytes: each
 * response's items are kept as JSON text (a few bytes per character, where parsed objects
 * took four to five times the input) and the oldest are dropped first once the budget is
 * exceeded. A dropped id then answers 400 like an unknown one, as the real API does for an
 * expired response.
 *
 * @example
 * const store = new ResponsesStore(64 * 1024 * 1024);
 * store.set('resp_1', [{ role: 'user', content: 'hi' }]);
 * store.get('resp_1'); // [{ role: 'user', content: 'hi' }]
 */
export class ResponsesStore {
  readonly maxBytes: number;
  private readonly entries = new Map<string, { json: string; bytes: number }>();
  private bytes = 0;
  private evictions = 0;

  constructor(maxBytes: number = DEFAULT_RESPONSES_STORE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`responsesStoreBytes: expected a whole number of bytes ≥ 0, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
  }

  set(id: string, items: readonly unknown[]): void {
    this.delete(id);
    const json = JSON.stringify(items);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.maxBytes) {
      this.evictions++;
      return;
    }
    while (this.bytes + bytes > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
      this.evictions++;
    }
    this.entries.set(id, { json, bytes });
    this.bytes += bytes;
  }

  get(id: string): unknown[] | undefined {
    const entry = this.entries.get(id);
    return entry ? (JSON.parse(entry.json) as unknown[]) : undefined;
  }

  stats(): ResponsesStoreStats {
    return { entries: this.entries.size, bytes: this.bytes, maxBytes: this.maxBytes, evictions: this.evictions };
  }

  private delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
  }
}
