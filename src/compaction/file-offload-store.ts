import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../model/canonical-json.js';
import { ValidationError } from '../model/errors.js';
import { sha256 } from '../model/hash.js';
import type { JsonValue } from '../model/json.js';
import { imageBlockSchema, textBlockSchema } from '../model/schemas.js';
import { type OffloadRecord, type OffloadStore, restoreIdFor } from './offload-store.js';
import { OffloadStoreError } from './offload-store-error.js';
import { writeFileAtomic } from './write-file-atomic.js';

export const DEFAULT_CONTEXT_DIR = '.cachet/context';

const ID_PATTERN = /^ctx_[0-9a-f]{16}$/;

const storedRecordSchema = z
  .object({
    id: z.string().regex(ID_PATTERN),
    sessionId: z.string().min(1),
    toolUseId: z.string().nullable(),
    reason: z.string(),
    content: z.array(z.union([textBlockSchema, imageBlockSchema])),
    originalTokens: z.number().int().nonnegative(),
    /** SHA-256 of the canonical JSON of the rest of the record; absent in records of the flat layout. */
    recordSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  })
  .strict();

/**
 * Offloaded content as one JSON file per record, in a directory per session:
 * `<dir>/s_<hash of the session id>/<id>.json` (default `.cachet/context/`). JSON keeps every
 * string exactly, so a restore is byte-for-byte.
 *
 * - Scoped: a record is found only through the session that offloaded it; two sessions offloading
 *   the same content hold two records.
 * - Durable: each file is written to a temporary file, fsynced and renamed into place, so a crash
 *   or a concurrent reader never sees half a record; a record that is damaged anyway (a disk
 *   fault, an edit) fails its hash (over the whole record) on `get` with `OffloadStoreError` (`offload_corrupt`),
 *   and the next `put` of that content replaces it. `list` reads names only: one damaged record
 *   never hides the others.
 * - Records of the earlier flat layout (`<dir>/<id>.json`) are still read, for their own session.
 *
 * @example
 * const store = new FileOffloadStore('.cachet/context');
 * await store.put(record);
 * (await store.get(record.id, record.sessionId))?.content;
 */
export class FileOffloadStore implements OffloadStore {
  constructor(readonly directory: string = DEFAULT_CONTEXT_DIR) {}

  async put(record: OffloadRecord): Promise<void> {
    checkId(record.id);
    checkSessionId(record.sessionId);
    const directory = this.sessionDirectory(record.sessionId);
    await this.ensureDirectory(directory);
    const path = join(directory, `${record.id}.json`);
    // Ids are content hashes: a sound record already there holds the same bytes, keep it. A damaged one is replaced.
    const existing = await this.readRecord(path).catch((error: unknown) => {
      if (error instanceof OffloadStoreError && error.code === 'offload_corrupt') return null;
      throw error;
    });
    if (existing) return;
    const stored = { ...record, recordSha256: recordHash(record) };
    try {
      await writeFileAtomic(path, JSON.stringify(stored));
    } catch (error) {
      throw new OffloadStoreError('offload_write_failed', path, `could not write ${path}: ${errorCode(error)}`, { cause: error });
    }
  }

  async get(id: string, sessionId: string): Promise<OffloadRecord | null> {
    checkId(id);
    checkSessionId(sessionId);
    const scopedPath = join(this.sessionDirectory(sessionId), `${id}.json`);
    const scoped = await this.readRecord(scopedPath);
    if (scoped) {
      if (scoped.id !== id || scoped.sessionId !== sessionId) throw corrupt(scopedPath, 'it holds another record');
      return scoped;
    }
    const flatPath = join(this.directory, `${id}.json`);
    const flat = await this.readRecord(flatPath);
    if (flat && flat.id !== id) throw corrupt(flatPath, 'it holds another record');
    // A flat-layout record of another session is not this session's.
    return flat?.sessionId === sessionId ? flat : null;
  }

  async list(sessionId: string): Promise<string[]> {
    checkSessionId(sessionId);
    const scoped = (await this.recordNames(this.sessionDirectory(sessionId))).map((name) => name.slice(0, -'.json'.length));
    // Flat-layout records name their session inside: read each, and skip (never throw on) a damaged one.
    const legacy: string[] = [];
    for (const name of await this.recordNames(this.directory)) {
      const record = await this.readRecord(join(this.directory, name)).catch(() => null);
      if (record?.sessionId === sessionId) legacy.push(record.id);
    }
    return [...new Set([...scoped, ...legacy])].sort();
  }

  /** The directory of one session's records; the session id is hashed so any id is a safe name. */
  sessionDirectory(sessionId: string): string {
    return join(this.directory, `s_${sha256(sessionId).slice(0, 32)}`);
  }

  private async ensureDirectory(directory: string): Promise<void> {
    try {
      await mkdir(directory, { recursive: true });
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST' || code === 'ENOTDIR') throw this.notADirectory(error);
      throw new OffloadStoreError('offload_write_failed', directory, `could not create ${directory}: ${code}`, {
        cause: error,
      });
    }
  }

  private async recordNames(directory: string): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return [];
      if (code === 'ENOTDIR') throw this.notADirectory(error);
      throw new OffloadStoreError('offload_read_failed', directory, `could not list ${directory}: ${code}`, { cause: error });
    }
    return names.filter((name) => ID_PATTERN.test(name.slice(0, -'.json'.length)) && name.endsWith('.json')).sort();
  }

  /** null when there is no file; `offload_corrupt` when the file is not a sound record. */
  private async readRecord(path: string): Promise<OffloadRecord | null> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return null;
      if (code === 'ENOTDIR') throw this.notADirectory(error);
      throw new OffloadStoreError('offload_read_failed', path, `could not read ${path}: ${code}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw corrupt(path, `it is not complete JSON (${text.length} characters)`, error);
    }
    const result = storedRecordSchema.safeParse(parsed);
    if (!result.success) throw corrupt(path, `it is not an offload record (${result.error.issues[0]?.message ?? 'bad shape'})`);
    const { recordSha256, ...fields } = result.data;
    const record = fields as OffloadRecord;
    if (recordSha256 !== undefined && recordSha256 !== recordHash(record)) throw corrupt(path, 'it does not match its hash');
    // Flat-layout records carry no hash; their id is the content's (see `restoreIdFor`).
    if (recordSha256 === undefined && restoreIdFor(record.content) !== record.id) {
      throw corrupt(path, `its content does not match its id ${record.id}`);
    }
    return record;
  }

  private notADirectory(cause: unknown): OffloadStoreError {
    return new OffloadStoreError(
      'offload_directory_invalid',
      this.directory,
      `the offload directory ${this.directory} (or a folder in it) exists but is not a directory; move the file away or pass another directory`,
      { cause },
    );
  }
}

function recordHash(record: OffloadRecord): string {
  const { id, sessionId, toolUseId, reason, content, originalTokens } = record;
  return sha256(canonicalJson({ id, sessionId, toolUseId, reason, content, originalTokens } as unknown as JsonValue));
}

function corrupt(path: string, why: string, cause?: unknown): OffloadStoreError {
  return new OffloadStoreError('offload_corrupt', path, `offload record ${path} is damaged: ${why}`, { cause });
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

function checkId(id: string): void {
  // The id becomes a file name: refuse anything that could leave the directory.
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    throw new ValidationError('id', 'a restore id like ctx_0123456789abcdef', `got ${JSON.stringify(String(id).slice(0, 64))}`);
}

function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== 'string' || sessionId.length === 0) throw new ValidationError('sessionId', 'a non-empty session id');
}
