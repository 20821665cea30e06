/**
 * Serialised answers of the read endpoints, reused while the store holds the same data.
 * `version` comes from `store.dataVersion()`: any new event changes it, so an answer is never
 * served after the data it summarises has grown. Concurrent requests for the same missing
 * answer share one query (single flight), so a burst of dashboard clients costs one aggregate.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { version: string; body: string }>();
  private readonly inFlight = new Map<string, { version: string; body: Promise<string> }>();

  constructor(private readonly maxEntries = 200) {}

  async get(key: string, version: string, compute: () => Promise<unknown>): Promise<string> {
    const cached = this.entries.get(key);
    if (cached && cached.version === version) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.body;
    }
    const running = this.inFlight.get(key);
    if (running && running.version === version) return running.body;
    const body = compute().then((answer) => JSON.stringify(answer));
    this.inFlight.set(key, { version, body });
    try {
      const text = await body;
      this.entries.delete(key);
      this.entries.set(key, { version, body: text });
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      return text;
    } finally {
      if (this.inFlight.get(key)?.body === body) this.inFlight.delete(key);
    }
  }
}
