import { freezeOverDeepFrozen } from '../../model/freeze.js';
import { type OutgoingBody, ownCopy } from './body-pieces.js';
import type { MemberSpan, ValueSpan } from './json-spans.js';
import { equalRange } from './kept-body.js';
import type { SharedPrefix } from './resumed-spans.js';

type JsonRecord = Record<string, unknown>;
const decoder = new TextDecoder();

/**
 * What a conversation keeps of its last parsed body so the next one parses only what is new:
 * the body's bytes, where its history items lie (relative to the list's opening bracket) and
 * the parsed items. Items are shared between successive bodies, never edited: every reader of a
 * parsed body (the plan, which copies what it marks, the cache models, the capture) only reads.
 */
export interface ParsedHistory {
  /**
   * The body's bytes in memory of their own (not a view into a larger buffer, never a lent body's
   * memory): one buffer, or pieces sharing the conversation's last kept body's memory (`keptSharing`).
   */
  bytes: OutgoingBody;
  /** `messages` or `input`. */
  key: string;
  /** Offset of the list's `[` in `bytes`. */
  base: number;
  /** Each item's start and end, relative to `base`. */
  starts: number[];
  ends: number[];
  items: unknown[];
}

/**
 * `JSON.parse` of a body indexed by `jsonSpans` (at least its members and its history list's
 * items), taking from `previous` the leading history items whose bytes are the same: a
 * conversation's next request repeats its history, so only the body around the list and the
 * items after the common prefix are decoded and parsed. The result equals `JSON.parse` of the
 * whole body (same values, same key order, the last of duplicate keys), but the history items
 * are deep-frozen; it throws where that throws. Also returns what to keep for the next body
 * (null when the body has no item list) and how many leading items were `previous`'s own objects.
 * `shared`: leading bytes of `bytes` already known equal to a body's (the span reader compared
 * them); when that body is `previous`'s, those bytes are not compared again. `keep` makes the
 * history's bytes from `bytes` (a lent body's are copied sharing the last kept body's memory);
 * by default `bytes` themselves, copied only when they are a view into a larger buffer.
 */
export function parseReusing(
  bytes: Uint8Array,
  root: ValueSpan,
  previous: ParsedHistory | null,
  shared: SharedPrefix | null = null,
  keep: (bytes: Uint8Array) => OutgoingBody = ownBytes,
): { body: unknown; history: ParsedHistory | null; reused: number } {
  const member = historyMember(root);
  const span = member?.value;
  if (!member || !span?.items) return { body: JSON.parse(decoder.decode(bytes)), history: null, reused: 0 };
  const spans = span.items;
  const known = shared && previous && shared.body === previous.bytes ? shared.bytes : 0;
  const reused = previous && previous.key === member.key ? commonItems(previous, bytes, span, known) : 0;
  const around = `${decoder.decode(bytes.subarray(0, span.start))}[]${decoder.decode(bytes.subarray(span.end))}`;
  const body: unknown = JSON.parse(around);
  const fresh: unknown[] =
    reused < spans.length ? JSON.parse(`[${decoder.decode(bytes.subarray(spans[reused]!.start, spans.at(-1)!.end))}]`) : [];
  // Frozen once, when first parsed: the items repeated from `previous` already are.
  for (const item of fresh) freezeParsed(item);
  const items = reused > 0 ? previous!.items.slice(0, reused).concat(fresh) : fresh;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, history: null, reused: 0 };
  (body as JsonRecord)[member.key] = items;
  return {
    body,
    history: {
      bytes: keep(bytes),
      key: member.key,
      base: span.start,
      starts: spans.map((item) => item.start - span.start),
      ends: spans.map((item) => item.end - span.start),
      items,
    },
    reused,
  };
}

/**
 * Deep-freezes a value `JSON.parse` just made (plain objects, arrays and primitives, nothing shared,
 * no cycles) bottom-up: each object is stamped deep-frozen once its members are
 * (`freezeOverDeepFrozen`), instead of `deepFreeze`'s walk adding every object to the deep-frozen
 * WeakSet (analyze's reader went from 11-13 to 7-9 µs per line of three messages the same way).
 */
function freezeParsed(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeParsed(value[index]);
  } else {
    for (const key in value) freezeParsed((value as JsonRecord)[key]);
  }
  freezeOverDeepFrozen(value);
}

/** `bytes` in memory of their own: themselves, or a copy when they are a view into a larger buffer. */
function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : ownCopy(bytes);
}

/** The `messages` (else `input`) member JSON.parse keeps (the last), when it is an indexed list. */
function historyMember(root: ValueSpan): MemberSpan | undefined {
  for (const key of ['messages', 'input']) {
    const member = root.members?.findLast((candidate) => candidate.key === key);
    if (member) return member.value.kind === 'array' ? member : undefined;
  }
  return undefined;
}

/**
 * How many leading items of `list` (in `bytes`) are byte for byte the previous body's: items at
 * the same relative offsets are compared in one `Buffer.compare` of the whole run, narrowed by
 * halving when something inside it differs. Bytes before `knownEqual` are equal to
 * `previous.bytes`' already (the span reader compared them): a run within them is not compared.
 */
function commonItems(previous: ParsedHistory, bytes: Uint8Array, list: ValueSpan, knownEqual: number): number {
  const items = list.items!;
  const base = list.start;
  const limit = Math.min(items.length, previous.starts.length);
  let candidate = 0;
  while (
    candidate < limit &&
    items[candidate]!.start - base === previous.starts[candidate] &&
    items[candidate]!.end - base === previous.ends[candidate]
  ) {
    candidate++;
  }
  const same = (count: number) => {
    if (count === 0) return true;
    const length = previous.ends[count - 1]!;
    if (base === previous.base && base + length <= knownEqual) return true;
    return equalRange(previous.bytes, previous.base, bytes, base, length);
  };
  if (same(candidate)) return candidate;
  let low = 0;
  let high = candidate - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (same(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}
