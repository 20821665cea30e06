import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { CachetError } from './errors.js';

/** Why a file could not be read as bounded text. */
export type FileReadProblem = 'not_found' | 'not_regular_file' | 'too_large' | 'unreadable';

/**
 * A file that cannot be read as input: missing, not a regular file (a FIFO, socket, device or
 * directory, which would block or never end), larger than the limit, or unreadable. Callers
 * wrap it in their own typed error (WorkloadError, SkillFileError, ...) naming the file.
 */
export class FileReadError extends CachetError {
  readonly file: string;
  readonly problem: FileReadProblem;
  readonly detail: string;
  constructor(file: string, problem: FileReadProblem, detail: string, options?: { cause?: unknown }) {
    super(`file_${problem}`, `${file}: ${detail}`, options);
    this.file = file;
    this.problem = problem;
    this.detail = detail;
  }
}

export interface ReadRegularFileOptions {
  /** Largest file accepted, in bytes; a larger file is refused before it is read. */
  maxBytes: number;
  /**
   * Runs on the open descriptor before anything is read, e.g. to check that the file opened
   * is the one a path check approved. Throw to refuse.
   */
  verify?: (handle: FileHandle, stats: Stats) => Promise<void>;
}

// Opening a FIFO for reading blocks until a writer appears; O_NONBLOCK makes open return at
// once so fstat can refuse it. It has no effect on regular files. Absent on Windows.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Read a regular file as UTF-8 text, opened once: the type and size checks, the optional
 * `verify` and the read all use the same descriptor, so the file cannot be swapped between
 * the check and the read. Reads at most `maxBytes + 1` bytes, so a file that grows after the
 * size check is refused too.
 *
 * @example
 * const text = await readRegularFile('workloads/coding-agent.yaml', { maxBytes: 16 * 1024 * 1024 });
 */
export async function readRegularFile(file: string, options: ReadRegularFileOptions): Promise<string> {
  const { handle, stats } = await openRegularFile(file);
  try {
    if (stats.size > options.maxBytes) {
      throw new FileReadError(file, 'too_large', tooLarge(stats.size, options.maxBytes));
    }
    await options.verify?.(handle, stats);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(READ_CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw new FileReadError(file, 'too_large', tooLarge(total, options.maxBytes, true));
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (error) {
    throw asFileReadError(file, error);
  } finally {
    await handle.close();
  }
}

/**
 * Open `file` for reading only if it is a regular file: a FIFO, socket, device or directory is
 * refused before anything is read (opening does not block on a FIFO). The caller closes the
 * handle. For reading a large file in pieces, e.g. line by line.
 *
 * @example
 * const { handle, stats } = await openRegularFile('capture.jsonl');
 * try { ... } finally { await handle.close(); }
 */
export async function openRegularFile(file: string): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FileReadError(file, 'not_found', 'file not found', { cause: error });
    throw new FileReadError(file, 'unreadable', `cannot be read (${code ?? String(error)})`, { cause: error });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new FileReadError(file, 'not_regular_file', `not a regular file (${describeKind(stats)}); refused`);
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw asFileReadError(file, error);
  }
}

/** A read failure as a FileReadError naming the file (CachetErrors pass through). */
export function asFileReadError(file: string, error: unknown): CachetError {
  if (error instanceof CachetError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new FileReadError(file, 'unreadable', `cannot be read (${code ?? String(error)})`, { cause: error });
}

function tooLarge(size: number, maxBytes: number, grewWhileRead = false): string {
  return `${formatBytes(size)}${grewWhileRead ? ' or more (it grew while read)' : ''} is larger than the limit of ${formatBytes(maxBytes)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}
