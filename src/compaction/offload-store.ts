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
 * Where offloaded content goes. Records are scoped by session: `get` finds a record only for the
 * session that put it, and two sessions offloading the same content (the same id) hold two
 * records. Nothing is ever deleted by Cachet; `put` of an id the session already holds keeps the
 * first record (ids are content hashes, so the bytes are the same).
 */
export interface OffloadStore {
  put(record: OffloadRecord): MaybePromise<void>;
  /** The session's record with this id, or null (also when another session holds that id). */
  get(id: string, sessionId: string): MaybePromise<OffloadRecord | null>;
  list(sessionId: string): MaybePromise<string[]>;
}

/** Deterministic restore id of some content (no clock, no randomness: markers stay cache-stable). */
export function restoreIdFor(content: ReadonlyArray<TextBlock | ImageBlock>): string {
  return `ctx_${sha256(canonicalJson(content as unknown as JsonValue)).slice(0, 16)}`;
}

/** An in-memory store, for tests, simulations and short-lived processes. It answers synchronously. */
export class MemoryOffloadStore implements OffloadStore {
  /** Session id, then restore id. */
  private readonly sessions = new Map<string, Map<string, OffloadRecord>>();

  put(record: OffloadRecord): void {
    let records = this.sessions.get(record.sessionId);
    if (!records) {
      records = new Map();
      this.sessions.set(record.sessionId, records);
    }
    if (!records.has(record.id)) records.set(record.id, structuredClone(record));
  }
  get(id: string, sessionId: string): OffloadRecord | null {
    const record = this.sessions.get(sessionId)?.get(id);
    return record ? structuredClone(record) : null;
  }
  list(sessionId: string): string[] {
    return [...(this.sessions.get(sessionId)?.keys() ?? [])];
  }
}
