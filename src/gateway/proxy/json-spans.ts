/** Nesting beyond this is not planned: the body is forwarded as it came (recursive consumers could not read it). */
export const MAX_PLAN_DEPTH = 512;

/** A JSON value's bytes: `[start, end)` in the body. */
export interface ValueSpan {
  kind: 'object' | 'array' | 'string' | 'other';
  start: number;
  end: number;
  /** Members in order, duplicates kept (objects within the indexed depth). */
  members?: MemberSpan[];
  /** Items in order (arrays within the indexed depth). */
  items?: ValueSpan[];
}

export interface MemberSpan {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  value: ValueSpan;
}

/** Why a body was not indexed. */
export type SpanFailure = 'not-json' | 'too-deep' | 'not-an-object';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const utf8 = new TextDecoder();

/** A container the scan is inside of. */
export interface OpenContainer {
  span: ValueSpan;
  /** Key of the member being read (objects). */
  key: string | null;
  keyStart: number;
}
type Open = OpenContainer;

/**
 * A scan stopped just past an item of an indexed array (`jsonSpansFrom`'s `pauseAfter`): the
 * containers open there, outermost first, their members and items so far. A scan resumed from
 * it on bytes equal up to `at` (plus one byte after a number or literal) ends as the whole
 * scan would.
 */
export interface PausedScan {
  /** Offset just past the item the scan stopped after. */
  at: number;
  open: OpenContainer[];
}

/**
 * Locate the value spans of a JSON body in its own bytes, iteratively (no recursion, so depth
 * cannot overflow the stack) and without decoding string contents (invalid UTF-8, big numbers
 * and duplicate keys stay exactly as sent). Objects and arrays are indexed down to `indexDepth`
 * levels below the root; deeper values are spanned but not indexed. Nesting beyond `maxDepth`
 * or bytes that are not one JSON object give a failure instead.
 *
 * @example
 * const spans = jsonSpans(new TextEncoder().encode('{"a":[1,{"b":2}]}'), 3);
 * spans.members[0].value.items[1].start; // 7
 */
export function jsonSpans(body: Uint8Array, indexDepth: number, maxDepth = MAX_PLAN_DEPTH): ValueSpan | SpanFailure {
  const root = spanValue(body, 0, body.byteLength, indexDepth, maxDepth);
  if (typeof root === 'string') return root;
  return root.kind === 'object' ? root : 'not-an-object';
}

/**
 * `span` (an object or array of `body`, spanned but not indexed, as below a `jsonSpans` index
 * depth) indexed `indexDepth` levels down, offsets still in `body`: a caller indexes only the
 * values it edits instead of the whole body. Throws when its bytes are not one JSON value.
 */
export function indexSpan(body: Uint8Array, span: ValueSpan, indexDepth: number): ValueSpan {
  if (span.kind !== 'object' && span.kind !== 'array') return span;
  const indexed = spanValue(body, span.start, span.end, indexDepth, MAX_PLAN_DEPTH);
  if (typeof indexed === 'string') throw new Error(`a value at byte ${span.start} could not be indexed (${indexed})`);
  return indexed;
}

/**
 * How `jsonSpansFrom` stops and goes on: `pauseAfter` is asked after each item of an indexed
 * array (the containers open, outermost first; the array is the last) and a true answer stops
 * the scan there (a `PausedScan`); `resume` goes on from such a stop, its containers used as they
 * are (pass copies to resume twice from one stop).
 */
export interface ScanControl {
  pauseAfter?: (open: readonly OpenContainer[], item: ValueSpan) => boolean;
  resume?: PausedScan;
}

/** `jsonSpans` (at most `MAX_PLAN_DEPTH` deep) that can stop after an array item and go on later (`ScanControl`). */
export function jsonSpansFrom(body: Uint8Array, indexDepth: number, scan: ScanControl): ValueSpan | SpanFailure | PausedScan {
  const root = scanSpans(body, 0, body.byteLength, indexDepth, MAX_PLAN_DEPTH, scan);
  if (typeof root === 'string' || !('kind' in root)) return root;
  return root.kind === 'object' ? root : 'not-an-object';
}

function spanValue(
  body: Uint8Array,
  from: number,
  to: number,
  indexDepth: number,
  maxDepth: number,
): ValueSpan | 'not-json' | 'too-deep' {
  // Asked nothing and resuming nothing, a scan never pauses.
  return scanSpans(body, from, to, indexDepth, maxDepth, {}) as ValueSpan | 'not-json' | 'too-deep';
}

function scanSpans(
  body: Uint8Array,
  from: number,
  to: number,
  indexDepth: number,
  maxDepth: number,
  scan: ScanControl,
): ValueSpan | PausedScan | 'not-json' | 'too-deep' {
  // A Buffer view of the same memory: its indexOf is memchr, many times faster than a typed array's.
  const whole = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const bytes = to === whole.byteLength ? whole : whole.subarray(0, to);
  const stack: Open[] = scan.resume?.open ?? [];
  let root: ValueSpan | null = null;
  let paused: PausedScan | null = null;
  let index = skipSpace(bytes, from);
  const attach = (span: ValueSpan) => {
    const parent = stack.at(-1);
    if (!parent) {
      if (root) throw new SyntaxError('more than one value');
      root = span;
      return;
    }
    if (parent.span.kind !== 'array') {
      parent.span.members?.push({ key: parent.key ?? '', keyStart: parent.keyStart, value: span });
    } else if (parent.span.items) {
      parent.span.items.push(span);
      if (scan.pauseAfter?.(stack, span)) paused = { at: span.end, open: stack };
    }
  };
  try {
    if (scan.resume) index = afterValue(bytes, scan.resume.at, stack.at(-1));
    while (index < bytes.length && !paused) {
      const byte = bytes[index]!;
      const top = stack.at(-1);
      if (top?.span.kind === 'object' && top.key === null && byte === QUOTE) {
        const keyEnd = stringEnd(bytes, index);
        // Only indexed objects keep their keys: decoding every key of a long history costs more than the scan.
        top.key = top.span.members ? decodeKey(bytes, index, keyEnd) : '';
        top.keyStart = index;
        index = skipSpace(bytes, keyEnd);
        if (bytes[index] !== 0x3a /* : */) throw new SyntaxError('expected :');
        index = skipSpace(bytes, index + 1);
        continue;
      }
      if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
        if (stack.length >= maxDepth) return 'too-deep';
        const indexed = stack.length <= indexDepth;
        const kind = byte === 0x7b ? 'object' : 'array';
        if (!indexed) {
          // Below the indexed depth only the value's end matters: jump from string to string.
          const end = containerEnd(bytes, index, maxDepth - stack.length);
          if (end < 0) return 'too-deep';
          attach({ kind, start: index, end });
          index = afterValue(bytes, end, stack.at(-1));
          continue;
        }
        const span: ValueSpan = { kind, start: index, end: -1 };
        if (indexed && kind === 'object') span.members = [];
        if (indexed && kind === 'array') span.items = [];
        stack.push({ span, key: null, keyStart: -1 });
        index = skipSpace(bytes, index + 1);
        continue;
      }
      if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
        const open = stack.pop();
        if (!open || (byte === 0x7d) !== (open.span.kind === 'object')) throw new SyntaxError('unbalanced');
        open.span.end = index + 1;
        attach(open.span);
        index = afterValue(bytes, index + 1, stack.at(-1));
        continue;
      }
      const end = byte === QUOTE ? stringEnd(bytes, index) : scalarEnd(bytes, index);
      if (end === index) throw new SyntaxError('unexpected byte');
      attach({ kind: byte === QUOTE ? 'string' : 'other', start: index, end });
      index = afterValue(bytes, end, stack.at(-1));
    }
  } catch {
    return 'not-json';
  }
  if (paused) return paused;
  if (stack.length > 0 || !root) return 'not-json';
  return root;
}

/** After a value: skip a comma (a new key is expected in objects) and whitespace. */
function afterValue(bytes: Uint8Array, from: number, parent: Open | undefined): number {
  let index = skipSpace(bytes, from);
  if (parent && bytes[index] === 0x2c /* , */) {
    index = skipSpace(bytes, index + 1);
    if (parent.span.kind === 'object') {
      if (bytes[index] !== QUOTE) throw new SyntaxError('expected a key');
      parent.key = null;
    }
  } else if (parent?.span.kind === 'object') parent.key = null;
  return index;
}

/** Offset of the first byte at or after `from` that is not JSON whitespace. */
export function skipSpace(bytes: Uint8Array, from: number): number {
  let index = from;
  while (index < bytes.length) {
    const byte = bytes[index]!;
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
    index++;
  }
  return index;
}

/**
 * Offset just past the object or array opening at `start`, its strings skipped whole (so their
 * text is never looked at byte by byte); -1 when it nests deeper than `depthLeft`. Its syntax
 * inside is not checked (a consumer that needs the value parses it).
 */
function containerEnd(bytes: Uint8Array, start: number, depthLeft: number): number {
  let depth = 0;
  let index = start;
  while (index < bytes.length) {
    const byte = bytes[index]!;
    if (byte === QUOTE) {
      index = stringEnd(bytes, index);
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) {
      if (++depth > depthLeft) return -1;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (--depth === 0) return index + 1;
    }
    index++;
  }
  throw new SyntaxError('unbalanced');
}

/** Offset just past the string starting at `start` (its opening quote). */
function stringEnd(bytes: Uint8Array, start: number): number {
  const end = stringEndOrNone(bytes, start);
  if (end < 0) throw new SyntaxError('unterminated string');
  return end;
}

/** Offset just past the string whose opening quote is at `start`; -1 when it is unterminated. */
export function stringEndOrNone(bytes: Uint8Array, start: number): number {
  let index = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, index);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}

/** Offset just past a number, `true`, `false` or `null`. */
function scalarEnd(bytes: Uint8Array, start: number): number {
  let index = start;
  while (index < bytes.length) {
    const byte = bytes[index]!;
    const scalar =
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2d ||
      byte === 0x2b ||
      byte === 0x2e ||
      byte === 0x45;
    if (!scalar) break;
    index++;
  }
  return index;
}

function decodeKey(bytes: Uint8Array, start: number, end: number): string {
  // Short ASCII keys without escapes (nearly all) are read directly: no view, no decoder call.
  if (end - start <= 66) {
    let key = '';
    let index = start + 1;
    for (; index < end - 1; index++) {
      const byte = bytes[index]!;
      if (byte >= 0x80 || byte === BACKSLASH) break;
      key += String.fromCharCode(byte);
    }
    if (index === end - 1) return key;
  }
  const raw = utf8.decode(bytes.subarray(start, end));
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
}
