import type { OutgoingBody } from './body-pieces.js';
import { jsonSpans, type PausedScan, type ValueSpan } from './json-spans.js';
import { pausedAfterListItems, resumedSpansReader, type SharedPrefix } from './resumed-spans.js';
import { opensTurnFromSpans } from './turn-start.js';

type JsonRecord = Record<string, unknown>;
const decoder = new TextDecoder();
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the record stage reads from a body it does not otherwise need: its model and what `conversationKey` reads. */
export interface KeyFields {
  /** The top-level `model` when it is a string, else ''. */
  model: string;
  /**
   * A stand-in for the body with only what `conversationKey` reads (`metadata`, `prompt_cache_key`,
   * the `messages` or `input` items up to the first that is not a system item, then `system` and
   * `instructions` parsed only if read): the same key as the whole body gives.
   */
  keyBody: JsonRecord;
  /** Whether the body opens a new turn (`opensTurn`), read from its last message's spans. */
  opensTurn: boolean;
}

/**
 * A pass-through body's model and conversation-key fields from its value spans, parsing only
 * those values (a 500 KB body costs a scan of its structure, not a `JSON.parse` of its text).
 * Null when the bytes cannot be spanned (not one JSON object, nested too deep): then parse it whole.
 *
 * @example
 * keyFieldsOf(bytes)?.model; // 'claude-sonnet-5'
 */
export function keyFieldsOf(bytes: Uint8Array): KeyFields | null {
  const root = jsonSpans(bytes, 1);
  return typeof root === 'string' ? null : keyFieldsFromSpans(bytes, root);
}

/** `keyFieldsOf` from the body's spans (its members and their items indexed, as `jsonSpans(bytes, 1)` gives). */
export function keyFieldsFromSpans(bytes: Uint8Array, root: ValueSpan): KeyFields | null {
  // JSON.parse keeps the last of duplicate keys: so does this.
  const members = new Map<string, ValueSpan>();
  for (const member of root.members ?? []) members.set(member.key, member.value);
  const parse = (span: ValueSpan | undefined): unknown =>
    span === undefined ? undefined : JSON.parse(decoder.decode(bytes.subarray(span.start, span.end)));
  try {
    const model = parse(members.get('model'));
    const keyBody: JsonRecord = {};
    for (const name of ['metadata', 'prompt_cache_key']) {
      if (members.has(name)) keyBody[name] = parse(members.get(name));
    }
    for (const name of ['messages', 'input']) {
      const span = members.get(name);
      if (!span) continue;
      keyBody[name] = span.items ? openingItems(span.items, parse) : parse(span);
    }
    for (const name of ['system', 'instructions']) {
      if (!members.has(name)) continue;
      Object.defineProperty(keyBody, name, { enumerable: true, get: () => parse(members.get(name)) });
    }
    return { model: typeof model === 'string' ? model : '', keyBody, opensTurn: opensTurnFromSpans(bytes, members) };
  } catch {
    return null;
  }
}

/** Conversations whose last scan a `keyFieldsReader` remembers [1,024]. */
const SCANS_REMEMBERED = 1024;

export interface KeyFieldsReader {
  /** `keyFieldsOf(bytes)`, the same result, resumed past what the conversation's last body shared with it. */
  read(bytes: Uint8Array): KeyFields | null;
  /** The body read last is kept as `kept` (the tracker's copy): see `ResumedSpansReader.kept`. */
  kept(bytes: Uint8Array, kept: OutgoingBody): void;
  /** What the last read compared: see `ResumedSpansReader.lastShared`. */
  readonly lastShared: SharedPrefix | null;
  /** Bodies whose scan resumed from a remembered one. */
  readonly resumed: number;
}

/**
 * `keyFieldsOf` for a stream of bodies (the proxy's pass-through): a conversation's next body
 * repeats its last one up to the end of the message list, so the scan stops after the list's
 * opening item, looks up the last body opening with the same bytes, and when the new body equals
 * it up to the end of its last message, goes on from there instead of scanning the history again.
 * Equal bytes scan alike, so the result is always the whole scan's. Bodies under 16 KB are
 * scanned whole.
 *
 * @example
 * const reader = keyFieldsReader();
 * reader.read(bytes)?.model; // 'claude-sonnet-5'
 */
export function keyFieldsReader(): KeyFieldsReader {
  const spans = resumedSpansReader({
    indexDepth: 1,
    remembered: SCANS_REMEMBERED,
    // The opening: the list's first item that is not a system or developer message.
    pauseAfterOpening: (bytes, open, item) => {
      const listName = open[0]?.key;
      if (open.length !== 2 || (listName !== 'messages' && listName !== 'input')) return false;
      return item.kind === 'object' && !isSystemItem(bytes, item);
    },
    stopOf: (root, opening) => stopAfterList(root, opening.listStart, opening.items - 1),
  });
  return {
    read: (bytes) => {
      const root = spans.read(bytes);
      return typeof root === 'string' ? null : keyFieldsFromSpans(bytes, root);
    },
    kept: spans.kept,
    get lastShared() {
      return spans.lastShared;
    },
    get resumed() {
      return spans.resumed;
    },
  };
}

function isSystemItem(bytes: Uint8Array, item: ValueSpan): boolean {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(bytes.subarray(item.start, item.end)));
    return isRecord(parsed) && (parsed.role === 'system' || parsed.role === 'developer');
  } catch {
    return false;
  }
}

/**
 * The state a scan of `root`'s bytes had just past the last item of the list starting at
 * `listStart`: the root's members before the list, the list's items up to its opening item
 * (`keyIndex`) and its last one (all `keyFieldsFromSpans` reads of a list). Null when the list
 * ends in something other than an object.
 */
function stopAfterList(root: ValueSpan, listStart: number, keyIndex: number): PausedScan | null {
  const position = root.members!.findIndex((member) => member.value.start === listStart);
  const items = root.members![position]?.value.items;
  const last = items?.at(-1);
  if (!items || !last || last.kind !== 'object' || items.length <= keyIndex) return null;
  const kept = items.length - 1 > keyIndex ? [...items.slice(0, keyIndex + 1), last] : items.slice();
  return pausedAfterListItems(root, position, kept);
}

/** Items parsed in order up to and including the first that is not a system or developer message. */
function openingItems(items: ValueSpan[], parse: (span: ValueSpan) => unknown): unknown[] {
  const opening: unknown[] = [];
  for (const span of items) {
    const item = parse(span);
    opening.push(item);
    if (!(isRecord(item) && (item.role === 'system' || item.role === 'developer'))) break;
  }
  return opening;
}
