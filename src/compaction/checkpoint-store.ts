import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../model/canonical-json.js';
import { CachetError, ValidationError } from '../model/errors.js';
import { sha256 } from '../model/hash.js';
import type { JsonValue } from '../model/json.js';
import type { SerializedSession, Session } from '../session/session.js';
import type { MaybePromise } from './maybe-promise.js';
import { readJsonRecord } from './read-json-record.js';
import { writeFileAtomic } from './write-file-atomic.js';

/** The full state of a session archived before a rewrite, restorable with `Session.fromJSON`. */
export interface Checkpoint {
  /** `ckpt_` + 16 hex characters of the SHA-256 of the archived state. */
  id: string;
  sessionId: string;
  /** Why the checkpoint was taken (the compaction layer that followed). */
  reason: string;
  /** Time on the session's clock. */
  createdAt: number;
  session: SerializedSession;
  /** The compaction pipeline's own state (notes, the running summary, counters). */
  pipelineState: unknown;
}

export interface CheckpointStore {
  put(checkpoint: Checkpoint): MaybePromise<void>;
  get(id: string): MaybePromise<Checkpoint | null>;
}

export const DEFAULT_CHECKPOINT_DIR = '.cachet/checkpoints';
const ID_PATTERN = /^ckpt_[0-9a-f]{16}$/;

export class MemoryCheckpointStore implements CheckpointStore {
  private readonly checkpoints = new Map<string, Checkpoint>();
  put(checkpoint: Checkpoint): void {
    this.checkpoints.set(checkpoint.id, structuredClone(checkpoint));
  }
  get(id: string): Checkpoint | null {
    const checkpoint = this.checkpoints.get(id);
    return checkpoint ? structuredClone(checkpoint) : null;
  }
  get size(): number {
    return this.checkpoints.size;
  }
}

const checkpointSchema = z
  .object({
    id: z.string().regex(ID_PATTERN),
    sessionId: z.string().min(1),
    reason: z.string(),
    createdAt: z.number(),
    // The session itself is validated by Session.fromJSON when it is restored.
    session: z.unknown(),
    pipelineState: z.unknown(),
  })
  .strict();

/**
 * One JSON file per checkpoint under `.cachet/checkpoints/` by default.
 *
 * @example
 * const store = new FileCheckpointStore();
 * const checkpoint = await store.get('ckpt_0123456789abcdef');
 * const session = Session.fromJSON(checkpoint.session, { bus, clock });
 */
export class FileCheckpointStore implements CheckpointStore {
  constructor(readonly directory: string = DEFAULT_CHECKPOINT_DIR) {}

  async put(checkpoint: Checkpoint): Promise<void> {
    checkId(checkpoint.id);
    const path = join(this.directory, `${checkpoint.id}.json`);
    try {
      await mkdir(this.directory, { recursive: true });
      // Atomic: a crash mid-write must not leave a half checkpoint where a whole one was expected.
      await writeFileAtomic(path, JSON.stringify(checkpoint));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? `${this.directory} (or a folder in it) is not a directory` : code;
      throw new CachetError('checkpoint_write_failed', `could not write ${path}: ${why}`, { cause: error });
    }
  }

  async get(id: string): Promise<Checkpoint | null> {
    checkId(id);
    return (await readJsonRecord(
      join(this.directory, `${id}.json`),
      checkpointSchema,
      'checkpoint_read_failed',
    )) as Checkpoint | null;
  }
}

function checkId(id: string): void {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new ValidationError('checkpointId', 'a checkpoint id like ckpt_0123456789abcdef', `got ${JSON.stringify(id)}`);
  }
}

/** Archive a session and the pipeline state; the id is a hash of both (and the time), so it is stable. */
export function createCheckpoint(session: Session, state: unknown, reason: string, now: number): Checkpoint {
  const serialized = structuredClone(session.toJSON());
  const pipelineState = structuredClone(state);
  const id = `ckpt_${sha256(canonicalJson({ session: serialized, pipelineState, now } as unknown as JsonValue)).slice(0, 16)}`;
  return { id, sessionId: session.id, reason, createdAt: now, session: serialized, pipelineState };
}
