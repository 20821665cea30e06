import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** One serialised answer: UTF-8 JSON, its gzip form (compressed once, off the event loop) and an ETag. */
export interface CachedAnswer {
  json: Buffer;
  gzip: Buffer;
  etag: string;
}

/**
 * Serialised answers of the read endpoints, reused while the store holds the same data.
 * `version` comes from `store.dataVersion()`: any new event changes it, so an answer is never
 * served after the data it summarises has grown. Concurrent requests for the same missing
 * answer share one query (single flight), so a burst of dashboard clients costs one aggregate,
 * and each answer is serialised and compressed once rather than once per request.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { version: string; answer: CachedAnswer }>();
  private readonly inFlight = new Map<string, { version: string; answer: Promise<CachedAnswer> }>();

  constructor(private readonly maxEntries = 200) {}

  async get(key: string, version: string, compute: () => Promise<unknown>): Promise<CachedAnswer> {
    const cached = this.entries.get(key);
    if (cached && cached.version === version) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.answer;
    }
    const running = this.inFlight.get(key);
    if (running && running.version === version) return running.answer;
    const answer = compute().then(serialize);
    this.inFlight.set(key, { version, answer });
    try {
      const done = await answer;
      this.entries.delete(key);
      this.entries.set(key, { version, answer: done });
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      return done;
    } finally {
      if (this.inFlight.get(key)?.answer === answer) this.inFlight.delete(key);
    }
  }
}

async function serialize(value: unknown): Promise<CachedAnswer> {
  const json = Buffer.from(JSON.stringify(value));
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  return { json, gzip: await gzipAsync(json, { level: 6 }), etag };
}
