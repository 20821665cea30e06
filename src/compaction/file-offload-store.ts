import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CachetError, ValidationError } from '../model/errors.js';
import { imageBlockSchema, textBlockSchema } from '../model/schemas.js';
import type { OffloadRecord, OffloadStore } from './offload-store.js';
import { readJsonRecord } from './read-json-record.js';

export const DEFAULT_CONTEXT_DIR = '.cachet/context';

const ID_PATTERN = /^ctx_[0-9a-f]{16}$/;

const recordSchema = z
  .object({
    id: z.string().regex(ID_PATTERN),
    sessionId: z.string().min(1),
    toolUseId: z.string().nullable(),
    reason: z.string(),
    content: z.array(z.union([textBlockSchema, imageBlockSchema])),
    originalTokens: z.number().int().nonnegative(),
  })
  .strict();

/**
 * Offloaded content as one JSON file per record: `<dir>/<id>.json` (default `.cachet/context/`).
 * JSON keeps every string exactly, so a restore is byte-for-byte. A trace-store-backed store can
 * implement the same interface.
 *
 * @example
 * const store = new FileOffloadStore('.cachet/context');
 * await store.put(record);
 * (await store.get(record.id))?.content;
 */
export class FileOffloadStore implements OffloadStore {
  constructor(readonly directory: string = DEFAULT_CONTEXT_DIR) {}

  async put(record: OffloadRecord): Promise<void> {
    checkId(record.id);
    await mkdir(this.directory, { recursive: true });
    try {
      // `wx`: never overwrite; ids are content hashes, so an existing file holds the same bytes.
      await writeFile(this.pathOf(record.id), JSON.stringify(record), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CachetError('offload_write_failed', `could not write ${this.pathOf(record.id)}`, { cause: error });
      }
    }
  }

  async get(id: string): Promise<OffloadRecord | null> {
    checkId(id);
    return (await readJsonRecord(this.pathOf(id), recordSchema, 'offload_read_failed')) as OffloadRecord | null;
  }

  async list(sessionId: string): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const ids: string[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      const record = await this.get(name.slice(0, -'.json'.length));
      if (record?.sessionId === sessionId) ids.push(record.id);
    }
    return ids;
  }

  private pathOf(id: string): string {
    return join(this.directory, `${id}.json`);
  }
}

function checkId(id: string): void {
  // The id becomes a file name: refuse anything that could leave the directory.
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    throw new ValidationError('id', 'a restore id like ctx_0123456789abcdef', `got ${JSON.stringify(id)}`);
}
