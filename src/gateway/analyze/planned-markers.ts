import { isRecord, type JsonRecord } from '../../cache/wire/json-helpers.js';
import { isMarkableBlock } from '../../cache/wire/markable-block.js';
import { cacheControlTtl } from '../../cache/wire/normalize-anthropic.js';
import type { WireTtl } from '../../cache/wire/wire-unit.js';
import { ANTHROPIC_LOOKBACK_POSITIONS, ANTHROPIC_MAX_BREAKPOINTS } from '../../providers/anthropic/models.js';

/** A block by its place: zone, message (messages only, else -1), index in its list, position in prefix order. */
interface Place {
  zone: 'tools' | 'system' | 'messages';
  message: number;
  index: number;
  position: number;
}

/** A block by its index in its message's content and its position offset from the message's first block. */
interface BlockAt {
  index: number;
  offset: number;
}

/**
 * What the plan reads of one message's content, with offsets from the message's first block
 * position. Kept for as long as the message stays in the history: the usual readings (no marker,
 * or one; one markable block, the first) share their lists and entries instead of each allocating them.
 */
interface MessageMarks {
  /** The message read. */
  message: unknown;
  /** Blocks that hold a position (objects). */
  blocks: number;
  /** Index and offset of each markable block, in order. */
  markable: readonly BlockAt[];
  /** The last markable block whose `cache_control` is an object (a client tail's candidate). */
  lastMarked: BlockAt | null;
  /** The client's markers (`cache_control` with an ephemeral type), in order. */
  markers: ReadonlyArray<{ index: number; ttl: WireTtl }>;
  /** The content is a non-empty string: the plan rewrites it, so it never keeps the client's markers. */
  stringContent: boolean;
  /** The message, its content and its blocks (and their markers) are frozen: the same object reads the same. */
  frozen: boolean;
}

/**
 * Whether Cachet's plan (`planCacheFields`) keeps an Anthropic body's own markers, and where the
 * plan's history breakpoint falls, without building the planned body: what `keepsLockstep` needs
 * while a conversation's planned cache is its client's. The messages a body shares (the same
 * frozen objects) with the conversation's previous body are not read again. Equals
 * `planKeepsClientMarkers(body, planCacheFields(...))` and the plan's `lastBreakpointPosition`
 * (property test beside it against both).
 */
export class PlannedMarkers {
  private readonly messages = new MessagePrefix();

  /**
   * The plan's `lastBreakpointPosition` when the plan (5-minute markers, after a request whose
   * last planned breakpoint was at `previous`) leaves the client's markers where they are; null
   * when it moves, adds or drops one, or rewrites a string prompt.
   */
  keptPlan(body: JsonRecord, previous: number | null): { lastBreakpointPosition: number | null } | null {
    if (body.cache_control !== undefined) return null;
    if (typeof body.system === 'string' && body.system.length > 0) return null;
    const scan = new PlanScan(previous);
    if (Array.isArray(body.tools) && !scan.list(body.tools, 'tools')) return null;
    if (Array.isArray(body.system) && !scan.list(body.system, 'system')) return null;
    if (!this.messages.read(Array.isArray(body.messages) ? body.messages : [])) return null;
    return scan.keptPlan(this.messages);
  }
}

function place(message: number, index: number, position: number): Place {
  return { zone: 'messages', message, index, position };
}

/**
 * A body's messages as the plan reads them, kept for the next body: each message's reading and,
 * through each message, the block positions, the last message with a markable (and a marked)
 * block and the client's markers. A body that shares a leading run of messages (the same
 * frozen objects) with the last one reads only the messages after it.
 */
class MessagePrefix {
  private readonly marks: MessageMarks[] = [];
  /**
   * Each read message, or null where its reading cannot be reused (not frozen): what the next
   * body is compared with, a flat list of references (reading each reading's fields cost a
   * memory miss per message once many conversations interleave).
   */
  private readonly reusable: unknown[] = [];
  /** Block positions through message i, from the first message's first block. */
  private readonly ends: number[] = [];
  private readonly lastMarkableIn: number[] = [];
  private readonly lastMarkedIn: number[] = [];
  private readonly markerCounts: number[] = [];
  /** The client's markers in order, the first five at most (more than the plan places already means it moves one). */
  private readonly markers: Array<{ message: number; index: number; ttl: WireTtl }> = [];

  /** Reads `messages` from the first one the last body did not share; false on a string content (the plan rewrites it). */
  read(messages: readonly unknown[]): boolean {
    const reusable = this.reusable;
    const limit = Math.min(messages.length, reusable.length);
    let shared = 0;
    // Object.is, not ===: for two references to the same object === still loads the object's map (a
    // number is not equal to itself when it is NaN), a cache miss per message of a history nobody
    // touched since the conversation's last request; SameValue settles the same reference without it.
    // (`reusable` holds message objects and nulls only, where the two agree.)
    while (shared < limit && Object.is(reusable[shared], messages[shared]) && messages[shared] !== null) shared++;
    this.cut(shared);
    for (let index = shared; index < messages.length; index++) {
      const mark = marksOf(messages[index]);
      if (mark.stringContent) return false;
      this.append(mark);
    }
    return true;
  }

  markerCount(): number {
    return this.markerCounts.at(-1) ?? 0;
  }

  clientMarkers(): ReadonlyArray<{ message: number; index: number; ttl: WireTtl }> {
    return this.markers;
  }

  /** The last markable message block, its position offset by `base` (the blocks before the messages). */
  lastMarkable(base: number): Place | null {
    const message = this.lastMarkableIn.at(-1) ?? -1;
    return message < 0 ? null : this.lastMarkableOf(message, base);
  }

  /** The last markable message block whose `cache_control` is an object. */
  lastMarked(base: number): Place | null {
    const message = this.lastMarkedIn.at(-1) ?? -1;
    if (message < 0) return null;
    const { index, offset } = this.marks[message]!.lastMarked!;
    return place(message, index, base + this.start(message) + offset);
  }

  /** The last markable message block at or before position `previous`: the plan's lookback guard. */
  guard(base: number, previous: number): Place | null {
    const relative = previous - base;
    if (relative < 0 || this.marks.length === 0) return null;
    // The last message starting at or before it (starts never decrease).
    let low = 0;
    let high = this.marks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.start(middle) <= relative) low = middle;
      else high = middle - 1;
    }
    const start = this.start(low);
    const markable = this.marks[low]!.markable;
    for (let at = markable.length - 1; at >= 0; at--) {
      const { index, offset } = markable[at]!;
      if (start + offset <= relative) return place(low, index, base + start + offset);
    }
    const before = low === 0 ? -1 : this.lastMarkableIn[low - 1]!;
    return before < 0 ? null : this.lastMarkableOf(before, base);
  }

  private lastMarkableOf(message: number, base: number): Place {
    const markable = this.marks[message]!.markable;
    const { index, offset } = markable[markable.length - 1]!;
    return place(message, index, base + this.start(message) + offset);
  }

  private start(message: number): number {
    return message === 0 ? 0 : this.ends[message - 1]!;
  }

  private cut(length: number): void {
    const markers = length === 0 ? 0 : this.markerCounts[length - 1]!;
    if (this.markers.length > markers) this.markers.length = markers;
    this.marks.length = length;
    this.reusable.length = length;
    this.ends.length = length;
    this.lastMarkableIn.length = length;
    this.lastMarkedIn.length = length;
    this.markerCounts.length = length;
  }

  private append(mark: MessageMarks): void {
    const message = this.marks.length;
    const before = message - 1;
    this.marks.push(mark);
    this.reusable.push(mark.frozen ? mark.message : null);
    this.ends.push(this.start(message) + mark.blocks);
    this.lastMarkableIn.push(mark.markable.length > 0 ? message : message === 0 ? -1 : this.lastMarkableIn[before]!);
    this.lastMarkedIn.push(mark.lastMarked ? message : message === 0 ? -1 : this.lastMarkedIn[before]!);
    this.markerCounts.push((message === 0 ? 0 : this.markerCounts[before]!) + mark.markers.length);
    for (const { index, ttl } of mark.markers) {
      if (this.markers.length <= ANTHROPIC_MAX_BREAKPOINTS) this.markers.push({ message, index, ttl });
    }
  }
}

const NONE: readonly never[] = Object.freeze([]);

const NO_MARKS: MessageMarks = {
  message: null,
  blocks: 0,
  markable: NONE,
  lastMarked: null,
  markers: NONE,
  stringContent: false,
  frozen: true,
};

/** The one-block lists most messages read as, shared (frozen) for the first few indices. */
const SHARED_INDICES = 4;
const SINGLE_MARKABLE: ReadonlyArray<ReadonlyArray<readonly BlockAt[]>> = Array.from({ length: SHARED_INDICES }, (_, index) =>
  Array.from({ length: SHARED_INDICES }, (_, offset) => Object.freeze([Object.freeze({ index, offset })])),
);
/** A 5-minute marker (the plan's own TTL, the usual one) on one of the first blocks, shared. */
const SINGLE_5M_MARKER: ReadonlyArray<ReadonlyArray<{ index: number; ttl: WireTtl }>> = Array.from(
  { length: SHARED_INDICES },
  (_, index) => Object.freeze([Object.freeze({ index, ttl: '5m' as const })]),
);

function marksOf(message: unknown): MessageMarks {
  if (!isRecord(message)) return { ...NO_MARKS, message, frozen: false };
  const content = message.content;
  if (!Array.isArray(content)) {
    return { ...NO_MARKS, message, stringContent: typeof content === 'string' && content.length > 0, frozen: false };
  }
  let frozen = Object.isFrozen(message) && Object.isFrozen(content);
  let blocks = 0;
  // A shared single-entry list for the first entry when there is one; a list of its own (copied once) past it.
  let markable = NO_MARKS.markable;
  let ownMarkable: BlockAt[] | null = null;
  let lastMarked: BlockAt | null = null;
  let markers = NO_MARKS.markers;
  let ownMarkers: Array<{ index: number; ttl: WireTtl }> | null = null;
  for (let index = 0; index < content.length; index++) {
    const block = content[index];
    if (!isRecord(block)) continue;
    const offset = blocks++;
    const cacheControl = block.cache_control;
    if (!Object.isFrozen(block) || (typeof cacheControl === 'object' && cacheControl !== null && !Object.isFrozen(cacheControl)))
      frozen = false;
    const ttl = cacheControl === undefined ? null : cacheControlTtl(cacheControl);
    if (ttl !== null) {
      if (ownMarkers) ownMarkers.push({ index, ttl });
      else if (markers.length === 0 && ttl === '5m' && index < SHARED_INDICES) markers = SINGLE_5M_MARKER[index]!;
      else markers = ownMarkers = [...markers, { index, ttl }];
    }
    if (!isMarkableBlock(block, 'messages')) continue;
    if (ownMarkable) ownMarkable.push({ index, offset });
    else if (markable.length === 0 && index < SHARED_INDICES && offset < SHARED_INDICES)
      markable = SINGLE_MARKABLE[index]![offset]!;
    else markable = ownMarkable = [...markable, { index, offset }];
    if (isRecord(cacheControl)) lastMarked = markable[markable.length - 1]!;
  }
  return { message, blocks, markable, lastMarked, markers, stringContent: false, frozen };
}

/** The client's tail (a marked block before the zone's last markable one, in the same message) keeps the zone's marker. */
function tail(last: Place | null, marked: Place | null): Place | null {
  return last && marked && marked.position !== last.position && marked.message === last.message ? marked : null;
}

/** The history's tail: as `tail`, or the client's last marker in the message before the last (a message-long tail). */
function historyTail(last: Place | null, marked: Place | null): Place | null {
  return tail(last, marked) ?? (last && marked && marked.message === last.message - 1 ? marked : null);
}

/** One pass over a body's blocks in prefix order, as `planCacheFields`' scan, collecting the client's markers beside. */
class PlanScan {
  private position = 0;
  private readonly lastMarkable: Record<'tools' | 'system', Place | null> = { tools: null, system: null };
  private lastMarkedSystem: Place | null = null;
  /** The client's markers on tools and system; more than the plan can place means it moves one. */
  private readonly markers: Array<Place & { ttl: WireTtl }> = [];

  constructor(private readonly previous: number | null) {}

  /** The tools or system blocks; false when the client has already marked more blocks than the plan can. */
  list(list: readonly unknown[], zone: 'tools' | 'system'): boolean {
    for (let index = 0; index < list.length; index++) {
      const block = list[index];
      if (!isRecord(block)) continue;
      const place: Place = { zone, message: -1, index, position: this.position++ };
      const cacheControl = block.cache_control;
      const ttl = cacheControl === undefined ? null : cacheControlTtl(cacheControl);
      // A literal, not a spread of `place`: this runs on every system and tool block of every body.
      if (ttl !== null) this.markers.push({ zone, message: -1, index, position: place.position, ttl });
      if (!isMarkableBlock(block, zone)) continue;
      this.lastMarkable[zone] = place;
      if (zone === 'system' && isRecord(cacheControl)) this.lastMarkedSystem = place;
    }
    return this.markers.length <= ANTHROPIC_MAX_BREAKPOINTS;
  }

  /** The plan's choice (as `planCacheFields`) with the messages after these blocks, and whether the client's markers are exactly it, 5-minute each. */
  keptPlan(messages: MessagePrefix): { lastBreakpointPosition: number | null } | null {
    if (this.markers.length + messages.markerCount() > ANTHROPIC_MAX_BREAKPOINTS) return null;
    const base = this.position;
    const system = tail(this.lastMarkable.system, this.lastMarkedSystem) ?? this.lastMarkable.system;
    const last = messages.lastMarkable(base);
    const history = historyTail(last, messages.lastMarked(base)) ?? last;
    const chosen: Place[] = [];
    if (this.lastMarkable.tools) chosen.push(this.lastMarkable.tools);
    if (system) chosen.push(system);
    const previous = this.previous;
    if (history && previous !== null && history.position - previous >= ANTHROPIC_LOOKBACK_POSITIONS) {
      const guard = messages.guard(base, previous);
      if (guard && guard.position !== history.position) chosen.push(guard);
    }
    if (history) chosen.push(history);
    while (chosen.length > ANTHROPIC_MAX_BREAKPOINTS) chosen.shift();
    const inMessages = messages.clientMarkers();
    if (chosen.length !== this.markers.length + inMessages.length) return null;
    for (let at = 0; at < chosen.length; at++) {
      const choice = chosen[at]!;
      const onBlocks = at < this.markers.length;
      const marker = onBlocks ? this.markers[at]! : inMessages[at - this.markers.length]!;
      const zone = onBlocks ? this.markers[at]!.zone : 'messages';
      if (marker.ttl !== '5m' || zone !== choice.zone || marker.message !== choice.message || marker.index !== choice.index)
        return null;
    }
    return { lastBreakpointPosition: history?.position ?? null };
  }
}
