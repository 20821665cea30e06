import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { CachetError } from '../model/errors.js';
import { parseWith } from '../model/validate.js';

/**
 * One record of a file-backed store: null when the file does not exist, a `CachetError` with
 * `readErrorCode` when it cannot be read, a `ValidationError` naming the file when its JSON
 * does not match `schema`.
 */
export async function readJsonRecord<T>(path: string, schema: z.ZodType<T>, readErrorCode: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CachetError(readErrorCode, `could not read ${path}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // A truncated file (a crash mid-write before writes were atomic) names itself instead of a bare SyntaxError.
    throw new CachetError(readErrorCode, `${path} is not complete JSON (${text.length} characters)`, { cause: error });
  }
  return parseWith(schema, parsed, path);
}
