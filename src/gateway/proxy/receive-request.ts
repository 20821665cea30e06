/** The proxy's receive stage: the client's body, read no further than the limit (`readLimitedBody`), and its JSON form. */
export { readLimitedBody as readLimited } from '../http/read-limited-body.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const decoder = new TextDecoder();

/** A JSON object from bytes, or null for anything else. */
export function parseJsonRecord(bytes: Uint8Array): JsonRecord | null {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(bytes));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
