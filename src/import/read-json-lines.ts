import { FileReadError } from '../model/read-regular-file.js';
import { readRegularFileLines } from '../model/read-regular-file-lines.js';
import type { SkipTally } from './log-record.js';

/** Longest log line read [64 MiB]; a longer one is counted as skipped, with the rest of its file. */
export const MAX_LOG_LINE_BYTES = 64 * 1024 * 1024;

export type JsonObject = Record<string, unknown>;

/**
 * The JSON objects of a JSONL log, one per line, read in chunks: memory is bounded by the
 * longest line. A line that is not JSON (a truncated last line, a crash mid-write) or not an
 * object is counted in `skipped` and passed over; it never stops the import.
 */
export async function* readJsonLines(
  file: string,
  skipped: SkipTally,
  maxLineBytes = MAX_LOG_LINE_BYTES,
): AsyncGenerator<{ value: JsonObject; line: number }> {
  try {
    for await (const { text, line } of readRegularFileLines(file, { maxLineBytes })) {
      if (text.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        skipped.invalidJson++;
        continue;
      }
      if (!isObject(value)) {
        skipped.foreign++;
        continue;
      }
      yield { value, line };
    }
  } catch (error) {
    if (error instanceof FileReadError && error.problem === 'too_large') {
      skipped.tooLong++;
      return;
    }
    throw error;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A whole, non-negative token count, or 0 when absent or not a count. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** An ISO 8601 time or epoch milliseconds, as ms; null when neither. */
export function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value !== 'string') return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length > 0 ? value : fallback;
}
