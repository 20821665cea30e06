import { canonicalJson } from '../model/canonical-json.js';
import type { ImageBlock, TextBlock } from '../model/content.js';
import { sha256 } from '../model/hash.js';
import type { JsonValue } from '../model/json.js';
import type { MaybePromise } from './maybe-promise.js';

/** Content taken out of the context, kept whole so it can be restored byte-for-byte. */
export interface OffloadRecord {
  /** `ctx_` + 16 hex characters of the SHA-256 of the content: equal content, equal id, same bytes in every process. */
  id: string;
  sessionId: string;
  /** The tool call whose output this was, when it was a tool output. */
  toolUseId: string | null;
  /** Why it left the context: `ingestion`, `ttl-pruning`, `priority`, `light`, `media`... */
  reason: string;
  content: Array<TextBlock | ImageBlock>;
  originalTokens: number;
}

/**
 * Where offloaded content goes. Nothing is ever deleted by Cachet; `put` of an id that exists
 * keeps the first record (ids are content hashes, so the bytes are the same).
 */
export interface OffloadStore {
  put(record: OffloadRecord): MaybePromise<void>;
  get(id: string): MaybePromise<OffloadRecord | null>;
  list(sessionId: string): MaybePromise<string[]>;
}

/** Deterministic restore id of some content (no clock, no randomness: markers stay cache-stable). */
export function restoreIdFor(content: ReadonlyArray<TextBlock | ImageBlock>): string {
  return `ctx_${sha256(canonicalJson(content as unknown as JsonValue)).slice(0, 16)}`;
}

/** An in-memory store, for tests, simulations and short-lived processes. It answers synchronously. */
export class MemoryOffloadStore implements OffloadStore {
  private readonly records = new Map<string, OffloadRecord>();

  put(record: OffloadRecord): void {
    if (!this.records.has(record.id)) this.records.set(record.id, structuredClone(record));
  }
  get(id: string): OffloadRecord | null {
    const record = this.records.get(id);
    return record ? structuredClone(record) : null;
  }
  list(sessionId: string): string[] {
    return [...this.records.values()].filter((record) => record.sessionId === sessionId).map((record) => record.id);
  }
}
