import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CachetError } from '../model/errors.js';

/** The import's input cannot be read: a missing path, or one that is neither a file nor a directory. */
export class ImportInputError extends CachetError {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super('invalid_import_input', `${path}: ${problem}`);
  }
}

/**
 * The log files at `path`: the file itself, or every file below the directory that
 * `isLogFile` accepts, in name order (so a session's files, and a day's rollouts, are read in
 * the order written). Symbolic links to directories are not followed (no loops).
 */
export async function findLogFiles(path: string, isLogFile: (file: string) => boolean): Promise<string[]> {
  const stats = await stat(path).catch(() => null);
  if (!stats) throw new ImportInputError(path, 'no such file or directory');
  if (stats.isFile()) return [path];
  if (!stats.isDirectory()) throw new ImportInputError(path, 'not a regular file or directory');
  const found: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      const child = join(directory, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile() && isLogFile(child)) found.push(child);
    }
  };
  await walk(path);
  return found;
}
