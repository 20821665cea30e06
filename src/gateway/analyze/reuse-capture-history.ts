/**
 * Parsing a capture line while reusing the history items the previous line of its conversation
 * already parsed. A conversation's next request repeats its whole history byte for byte, so a
 * capture is mostly bytes already parsed: the line is scanned up to its history list (`body.messages`,
 * else `body.input`), the leading items equal to the previous line's are found with one byte
 * comparison of the run, and only the rest of the line is decoded and parsed. The result equals
 * `JSON.parse` of the whole line. Reused items are shared between the bodies of a conversation,
 * so they are frozen (deeply): later passes can settle repeated history by identity (the
 * normalisers' shared units), and nothing can edit one body's history through another's.
 */

import { skipSpace } from '../proxy/json-spans.js';
import { type JsonLimits, LimitedWalk } from './json-limited-walk.js';
import { afterMember, afterValue, COMMA, endOfValue, newMember, QUOTE } from './json-line-scan.js';
import {
  type KeptMember,
  type MemberSpan,
  memberAt,
  membersDeepest,
  REUSED_BODY_MEMBERS,
  textAround,
} from './reuse-capture-members.js';

export type { JsonLimits } from './json-limited-walk.js';

/** Where a line's values nest: the line (0), its body (1), the history list (2), each item (3). */
const ITEM_DEPTH = 3;

/** Stands in for the history list while the line around it is walked (replaced by the body's own list). */
const EMPTY_LIST: readonly unknown[] = Object.freeze([]);

/** What a conversation keeps of its last line's history list. */
interface KeptHistory {
  /**
   * The list's bytes, from its `[` to its `]`, at the start of a buffer the conversation keeps
   * (lines are views into a read buffer): each line writes only the bytes after the run it
   * repeats, and a new buffer is taken only when the list outgrows it.
   */
  bytes: Buffer;
  key: 'messages' | 'input';
  /** Each item's end, relative to the list's `[`. */
  ends: number[];
  items: unknown[];
  /** JSON values in items 0..i-1 (`nodesBefore[0]` is 0). */
  nodesBefore: number[];
  /** Deepest container nesting within items 0..i-1, relative to an item (-1: none). */
  deepestBefore: number[];
  /** The body's system prompt and tools as last read (`REUSED_BODY_MEMBERS`). */
  members: Map<string, KeptMember>;
}

/** A line parsed by `HistoryReuse`: the JSON value, how many values it holds, how deep containers nest. */
export interface ReusedParse {
  json: unknown;
  /** Values in the whole line, as `findJsonProblem` counts them. */
  nodes: number;
  /** Deepest container's depth (the line itself is 0; -1 when none). */
  deepest: number;
}

/**
 * One reader's memory of each conversation's last history list. `parse` returns null for a line
 * it does not read this way (not an object, escaped keys, duplicate keys it relies on, invalid
 * JSON, a value past the limits, no history list): the caller parses that line whole, which also
 * gives the exact error.
 */
export class HistoryReuse {
  private readonly kept = new Map<string, KeptHistory>();

  constructor(private readonly limits: JsonLimits) {}

  parse(line: Buffer): ReusedParse | null {
    const found = locateHistory(line);
    if (found === null) return null;
    const previous = this.kept.get(found.conversationKey);
    const usable = previous !== undefined && previous.key === found.key ? previous : null;
    const reused = usable ? commonItems(line, found.listStart, usable) : 0;
    const reusedBytes = reused === 0 ? 0 : usable!.ends[reused - 1]!;
    const fresh = freshItems(line, found.listStart, reusedBytes);
    if (fresh === null) return null;
    // The spans after the list are appended to the ones before it (`concat` cost a copy and a species check per line).
    if (!membersAfterList(line, fresh.listEnd, found)) return null;
    const spans = found.members;
    const members = new Map<string, KeptMember>();
    for (const span of spans) {
      const member = memberAt(line, span, previous?.members.get(span.key), this.limits);
      if (member === null) return null;
      members.set(span.key, member);
    }
    // One parse: the line with its repeated items and kept members cut out (the fresh items stay in the list).
    const freshText = fresh.starts.length === 0 ? '' : line.toString('utf8', fresh.starts[0]!, fresh.ends.at(-1)!);
    let json: unknown;
    try {
      json = JSON.parse(textAround(line, found.listStart, fresh.listEnd, spans, `[${freshText}]`));
    } catch {
      return null;
    }
    const body = (json as Record<string, unknown>).body as Record<string, unknown>;
    const freshParsed = body[found.key] as unknown[];
    // The items are walked (and frozen) apart below: the walk around them counts the list as one value, as `[]`.
    body[found.key] = EMPTY_LIST;
    const aroundWalk = new LimitedWalk(this.limits, 0, false);
    if (!aroundWalk.visit(json, 0)) return null;
    // Each member's value was parsed as a 0 here (one value, counted by the walk): the kept value replaces it.
    let memberNodes = -spans.length;
    for (const [key, member] of members) {
      body[key] = member.value;
      memberNodes += member.nodes;
    }
    // Counted into locals first: a line past the limits returns null before the kept arrays change.
    let nodes = usable ? usable.nodesBefore[reused]! : 0;
    let deepest = usable ? usable.deepestBefore[reused]! : -1;
    const freshNodes: number[] = [];
    const freshDeepest: number[] = [];
    const itemWalk = new LimitedWalk(this.limits, ITEM_DEPTH, true);
    for (const item of freshParsed) {
      itemWalk.nodes = nodes;
      if (!itemWalk.visit(item, 0)) return null;
      nodes = itemWalk.nodes;
      deepest = Math.max(deepest, itemWalk.deepest);
      freshNodes.push(nodes);
      freshDeepest.push(deepest);
    }
    const items = reused > 0 ? repeatedThenFresh(usable!.items, reused, freshParsed) : freshParsed;
    body[found.key] = items;
    const base = found.listStart;
    // The kept arrays are this reader's own: cut to the repeated run and extended in place (not copied per line).
    const nodesBefore = keepRun(usable?.nodesBefore, reused + 1, [0], freshNodes);
    const deepestBefore = keepRun(usable?.deepestBefore, reused + 1, [-1], freshDeepest);
    const ends = keepRun(usable?.ends, reused, [], fresh.ends);
    for (let at = reused; at < ends.length; at++) ends[at] = ends[at]! - base;
    this.kept.set(found.conversationKey, {
      bytes: keepBytes(previous?.bytes ?? null, usable ? reusedBytes : 0, line, base, fresh.listEnd),
      key: found.key,
      ends,
      items,
      nodesBefore,
      deepestBefore,
      members,
    });
    const itemsDeepest = deepest;
    return {
      json,
      nodes: aroundWalk.nodes + memberNodes + nodes,
      deepest: Math.max(aroundWalk.deepest, membersDeepest(members.values()), itemsDeepest < 0 ? -1 : ITEM_DEPTH + itemsDeepest),
    };
  }
}

interface LocatedHistory {
  conversationKey: string;
  key: 'messages' | 'input';
  /** Offset of the list's `[`. */
  listStart: number;
  /** The line's and the body's keys before the list (none may repeat after it). */
  keysSeen: Set<string>;
  bodyKeysSeen: Set<string>;
  /** The body's members before the list whose values are kept (`REUSED_BODY_MEMBERS`). */
  members: MemberSpan[];
}

/**
 * The line's root members up to its body, the body's members up to its history list. Null when
 * the line does not start as an object, a key has escapes, a key repeats, or there is no list.
 */
function locateHistory(line: Buffer): LocatedHistory | null {
  let index = skipSpace(line, 0);
  if (line[index] !== 0x7b) return null;
  const keysSeen = new Set<string>();
  let conversation: string | null = null;
  index = skipSpace(line, index + 1);
  while (line[index] === QUOTE) {
    const member = newMember(line, index, keysSeen);
    if (member === null) return null;
    const { key, valueStart } = member;
    if (key === 'body') {
      if (line[valueStart] !== 0x7b) return null;
      const inBody = locateInBody(line, valueStart);
      if (inBody === null) return null;
      const conversationKey = conversation === null ? `first ${firstItemKey(line, inBody.listStart)}` : `id ${conversation}`;
      return { conversationKey, ...inBody, bodyKeysSeen: inBody.keysSeen, keysSeen };
    }
    const valueEnd = endOfValue(line, valueStart);
    if (valueEnd < 0) return null;
    if (key === 'conversation' && line[valueStart] === QUOTE) conversation = line.toString('latin1', valueStart, valueEnd);
    index = afterMember(line, valueEnd);
    if (index < 0) return null;
  }
  return null;
}

function locateInBody(
  line: Buffer,
  bodyStart: number,
): { key: 'messages' | 'input'; listStart: number; keysSeen: Set<string>; members: MemberSpan[] } | null {
  const keysSeen = new Set<string>();
  const members: MemberSpan[] = [];
  let index = skipSpace(line, bodyStart + 1);
  while (line[index] === QUOTE) {
    const member = newMember(line, index, keysSeen);
    if (member === null) return null;
    const { key, valueStart } = member;
    // The first list of the two is reused (the body's other members are parsed as they are).
    if ((key === 'messages' || key === 'input') && line[valueStart] === 0x5b) {
      return { key, listStart: valueStart, keysSeen, members };
    }
    index = memberEnd(line, key, valueStart, members);
    if (index < 0) return null;
  }
  return null;
}

/** Past the body member `key` whose value starts at `valueStart` (as `afterValue`), noting its span when its value is kept. */
function memberEnd(line: Buffer, key: string, valueStart: number, members: MemberSpan[]): number {
  if (!REUSED_BODY_MEMBERS.has(key)) return afterValue(line, valueStart);
  const valueEnd = endOfValue(line, valueStart);
  if (valueEnd < 0) return -1;
  members.push({ key, start: valueStart, end: valueEnd });
  return afterMember(line, valueEnd);
}

/**
 * After the list: the body's and the line's remaining keys are new (a repeated `body` or history
 * key would replace the values this reader assembled), `messages` does not follow an `input`
 * history, and nothing but members follows; whether so, the spans of the body's kept members
 * there appended to `found.members`. Values are not checked: `JSON.parse` does.
 */
function membersAfterList(line: Buffer, listEnd: number, found: LocatedHistory): boolean {
  const members = found.members;
  let index = skipSpace(line, listEnd);
  for (const keys of [found.bodyKeysSeen, found.keysSeen]) {
    if (line[index] === COMMA) {
      index = skipSpace(line, index + 1);
      while (line[index] === QUOTE) {
        const member = newMember(line, index, keys);
        if (member === null) return false;
        index =
          keys === found.bodyKeysSeen
            ? memberEnd(line, member.key, member.valueStart, members)
            : afterValue(line, member.valueStart);
        if (index < 0) return false;
      }
    }
    if (line[index] !== 0x7d) return false;
    index = skipSpace(line, index + 1);
  }
  return index === line.length;
}

/**
 * How many leading items of the list at `listStart` are byte for byte the kept list's: a run of
 * items is the same when its bytes are and the byte after it (spaces aside) ends an item. The
 * longest run is found by halving, one `Buffer.compare` per step. Usually one or two steps: the
 * whole list, else all but its last item (a client that moves its marker to the newest message
 * rewrites the previous last one), tried before halving, which compares about the whole list per step.
 */
function commonItems(line: Buffer, listStart: number, kept: KeptHistory): number {
  let high = kept.ends.length;
  if (sameItems(line, listStart, kept, high)) return high;
  if (high === 0) return 0;
  high--;
  if (sameItems(line, listStart, kept, high)) return high;
  let low = 0;
  high--;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (sameItems(line, listStart, kept, middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Whether the first `count` kept items are the line's, byte for byte, and end an item there. */
function sameItems(line: Buffer, listStart: number, kept: KeptHistory, count: number): boolean {
  if (count === 0) return true;
  const length = kept.ends[count - 1]!;
  if (listStart + length > line.length) return false;
  // The byte after the run first: the whole list is tried first, and when the client rewrote its
  // last item the run's end falls inside another item, which settles it without comparing the list.
  const next = line[skipSpace(line, listStart + length)];
  if (next !== COMMA && next !== 0x5d) return false;
  return line.compare(kept.bytes, 0, length, listStart, listStart + length) === 0;
}

/** The items after the first `reusedEnd` bytes of the list (relative to its `[`): their offsets, and the list's end. */
function freshItems(
  line: Buffer,
  listStart: number,
  reusedEnd: number,
): { starts: number[]; ends: number[]; listEnd: number } | null {
  const starts: number[] = [];
  const ends: number[] = [];
  let index = skipSpace(line, listStart + (reusedEnd > 0 ? reusedEnd : 1));
  if (line[index] === 0x5d) return { starts, ends, listEnd: index + 1 };
  if (reusedEnd > 0) {
    if (line[index] !== COMMA) return null;
    index = skipSpace(line, index + 1);
  }
  for (;;) {
    const end = endOfValue(line, index);
    if (end < 0) return null;
    starts.push(index);
    ends.push(end);
    index = skipSpace(line, end);
    if (line[index] === 0x5d) return { starts, ends, listEnd: index + 1 };
    if (line[index] !== COMMA) return null;
    index = skipSpace(line, index + 1);
  }
}

/** The first `count` kept items then the fresh ones, in one new array (the body's own list; no intermediate copy). */
function repeatedThenFresh(kept: readonly unknown[], count: number, fresh: readonly unknown[]): unknown[] {
  const items = new Array<unknown>(count + fresh.length);
  for (let index = 0; index < count; index++) items[index] = kept[index];
  for (let index = 0; index < fresh.length; index++) items[count + index] = fresh[index];
  return items;
}

/** `kept` cut to its first `length` entries and extended by `fresh` (or `start` and `fresh` when nothing is kept). */
function keepRun(kept: number[] | undefined, length: number, start: number[], fresh: readonly number[]): number[] {
  const run = kept ?? start;
  run.length = kept ? length : start.length;
  for (const value of fresh) run.push(value);
  return run;
}

/**
 * `line[start, end)` at the start of `kept` (whose first `same` bytes already hold it), or of a
 * larger buffer when it does not fit: a conversation's list grows by a little per line, so the
 * buffer is written in place instead of allocating (and collecting) a copy of the list per line.
 */
function keepBytes(kept: Buffer | null, same: number, line: Buffer, start: number, end: number): Buffer {
  const length = end - start;
  if (kept !== null && kept.length >= length) {
    line.copy(kept, same, start + same, end);
    return kept;
  }
  const grown = Buffer.allocUnsafeSlow(Math.max(length, kept === null ? 0 : kept.length * 2));
  line.copy(grown, 0, start, end);
  return grown;
}

/** The first item's bytes, keying a line without a `conversation` before its body (a conversation repeats its first message). */
function firstItemKey(line: Buffer, listStart: number): string {
  const start = skipSpace(line, listStart + 1);
  const end = endOfValue(line, start);
  return end < 0 ? '' : line.toString('latin1', start, end);
}
