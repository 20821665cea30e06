import { asFileReadError, FileReadError, formatBytes, openRegularFile } from './read-regular-file.js';

export interface ReadLinesOptions {
  /** Longest line accepted, in bytes (without its newline); a longer one is refused as it is read, never buffered whole. */
  maxLineBytes: number;
  /** Bytes read per call [1 MiB]. */
  chunkBytes?: number;
}

/** One line of a file: its text (UTF-8, without `\n` or `\r\n`) and its number, from 1. */
export interface FileLine {
  text: string;
  line: number;
}

/**
 * The lines of a regular file, read in chunks so a file of any size is read in memory bounded
 * by the longest line. Refuses FIFOs, sockets, devices (`/dev/zero`) and directories before
 * reading, and a line longer than `maxLineBytes` with a FileReadError naming the line.
 *
 * @example
 * for await (const { text, line } of readRegularFileLines('capture.jsonl', { maxLineBytes: 64 * 1024 * 1024 })) {
 *   if (text.trim()) handle(JSON.parse(text), line);
 * }
 */
export function readRegularFileLines(file: string, options: ReadLinesOptions): AsyncGenerator<FileLine> {
  return readLines(file, options, (bytes, end, line) => ({ text: bytes.toString('utf8', 0, end), line }));
}

/** One line of a file as bytes (without `\n` or `\r\n`; a view into a read buffer, copy it to keep it) and its number, from 1. */
export interface FileLineBytes {
  bytes: Buffer;
  line: number;
}

/**
 * `readRegularFileLines` without decoding: each line's bytes, for a reader that looks at them
 * before (or instead of) decoding them all. Same refusals and limits.
 */
export function readRegularFileLineBytes(file: string, options: ReadLinesOptions): AsyncGenerator<FileLineBytes> {
  return readLines(file, options, (bytes, end, line) => ({ bytes: end === bytes.length ? bytes : bytes.subarray(0, end), line }));
}

async function* readLines<T>(
  file: string,
  options: ReadLinesOptions,
  make: (bytes: Buffer, end: number, line: number) => T,
): AsyncGenerator<T> {
  const { handle } = await openRegularFile(file);
  const chunkBytes = options.chunkBytes ?? 1024 * 1024;
  try {
    // The pieces of the line being read; newline bytes (0x0A) never occur inside a UTF-8 character, so splitting bytes is safe.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let line = 1;
    const take = (piece: Buffer): T => {
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece], pendingBytes + piece.length);
      pending = [];
      pendingBytes = 0;
      const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
      return make(bytes, end, line++);
    };
    const tooLong = () =>
      new FileReadError(
        file,
        'too_large',
        `line ${line} is longer than the limit of ${formatBytes(options.maxLineBytes)} per line`,
      );
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(0x0a, start);
        if (newline === -1 || newline >= bytesRead) break;
        if (pendingBytes + (newline - start) > options.maxLineBytes) throw tooLong();
        yield take(chunk.subarray(start, newline));
        start = newline + 1;
      }
      if (start < bytesRead) {
        pendingBytes += bytesRead - start;
        if (pendingBytes > options.maxLineBytes) throw tooLong();
        pending.push(chunk.subarray(start, bytesRead));
      }
    }
    if (pendingBytes > 0) yield take(Buffer.alloc(0));
  } catch (error) {
    throw asFileReadError(file, error);
  } finally {
    await handle.close();
  }
}
