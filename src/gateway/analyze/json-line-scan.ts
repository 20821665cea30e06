/**
 * Byte-level steps over one JSON line, for readers that locate a value without parsing the
 * whole line (`reuse-capture-history.ts`). Each returns an offset, or -1 (null) when the bytes
 * are not what a plain, well-formed member would have; the caller then parses the line whole.
 */

import { skipSpace, stringEndOrNone } from '../proxy/json-spans.js';

export const QUOTE = 0x22;
export const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The keys of a capture line and of its body that every line repeats, by their bytes: such a key
 * is handed back as this constant instead of decoded from the line (a call into the native
 * decoder per key, eight or so per line).
 */
const KNOWN_KEYS: ReadonlyArray<{ text: string; bytes: Buffer }> = [
  'at',
  'conversation',
  'body',
  'usage',
  'provider',
  'model',
  'max_tokens',
  'system',
  'tools',
  'messages',
  'input',
  'stream',
  'metadata',
  'temperature',
  'tool_choice',
  'thinking',
].map((text) => ({ text, bytes: Buffer.from(text) }));

/** The known key whose bytes are `line[start, end)`, or undefined. */
function knownKey(line: Buffer, start: number, end: number): string | undefined {
  const length = end - start;
  for (const { text, bytes } of KNOWN_KEYS) {
    if (bytes.length !== length || bytes[0] !== line[start]) continue;
    let index = 1;
    while (index < length && bytes[index] === line[start + index]) index++;
    if (index === length) return text;
  }
  return undefined;
}

/** A key without escapes (nearly all), as text, and the offset past its closing quote. */
function plainKey(line: Buffer, start: number): { text: string; end: number } | null {
  const end = stringEndOrNone(line, start);
  if (end < 0) return null;
  const close = end - 1;
  // Keys are short: a loop, where indexOf would search the rest of the line for a backslash.
  for (let index = start + 1; index < close; index++) if (line[index] === BACKSLASH) return null;
  return { text: knownKey(line, start + 1, close) ?? line.toString('utf8', start + 1, close), end };
}

/** The member whose key starts at `start` (added to `keysSeen`); null for an escaped or repeated key, or no colon. */
export function newMember(line: Buffer, start: number, keysSeen: Set<string>): { key: string; valueStart: number } | null {
  const key = plainKey(line, start);
  if (key === null || keysSeen.has(key.text)) return null;
  keysSeen.add(key.text);
  const valueStart = afterColon(line, key.end);
  return valueStart < 0 ? null : { key: key.text, valueStart };
}

/** Past the value at `valueStart`: as `afterMember`. */
export function afterValue(line: Buffer, valueStart: number): number {
  const valueEnd = endOfValue(line, valueStart);
  return valueEnd < 0 ? -1 : afterMember(line, valueEnd);
}

function afterColon(line: Buffer, keyEnd: number): number {
  const colon = skipSpace(line, keyEnd);
  return line[colon] === COLON ? skipSpace(line, colon + 1) : -1;
}

/** After a member's value: the next key's offset (past a comma), or the closing brace's; -1 when neither follows. */
export function afterMember(line: Buffer, valueEnd: number): number {
  const index = skipSpace(line, valueEnd);
  if (line[index] === COMMA) {
    const next = skipSpace(line, index + 1);
    return line[next] === QUOTE ? next : -1;
  }
  return line[index] === 0x7d ? index : -1;
}

/**
 * Offset just past the value starting at `start` (strings skipped whole, containers by their
 * brackets outside strings); -1 when it does not end. Not a syntax check: `JSON.parse` of the
 * pieces is.
 */
export function endOfValue(line: Buffer, start: number): number {
  const first = line[start];
  if (first === QUOTE) return stringEndOrNone(line, start);
  if (first !== 0x7b && first !== 0x5b) {
    let index = start;
    while (index < line.length) {
      const byte = line[index]!;
      if (byte === COMMA || byte === 0x7d || byte === 0x5d || byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09)
        break;
      index++;
    }
    return index === start ? -1 : index;
  }
  let depth = 0;
  let index = start;
  while (index < line.length) {
    const byte = line[index]!;
    if (byte === QUOTE) {
      index = stringEndOrNone(line, index);
      if (index < 0) return -1;
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) depth++;
    else if ((byte === 0x7d || byte === 0x5d) && --depth === 0) return index + 1;
    index++;
  }
  return -1;
}
