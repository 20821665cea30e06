import { isRecord, type JsonRecord } from '../../cache/wire/json-helpers.js';
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

/** What the plan reads of one message's content, with offsets from the message's first block position. */
interface MessageMarks {
  /** The message read. */
  message: unknown;
  /** Blocks that hold a position (objects). */
  blocks: number;
  /** Index and offset of each markable block, in order. */
  markable: Array<{ index: number; offset: number }>;
  /** The last markable block whose `cache_control` is an object (a client tail's candidate). */
  lastMarked: { index: number; offset: number } | null;
  /** The client's markers (`cache_control` with an ephemeral type), in order. */
  markers: Array<{ index: number; ttl: WireTtl }>;
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
  /** The previous body's reading of each message, replaced from the first message this body does not share. */
  private readonly marks: MessageMarks[] = [];

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
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const marks = this.marks;
    let kept = true;
    let index = 0;
    for (; index < messages.length; index++) {
      const message = messages[index];
      let mark = index < marks.length ? marks[index]! : null;
      if (mark === null || mark.message !== message || !mark.frozen) {
        mark = marksOf(message);
        marks[index] = mark;
      }
      if (mark.stringContent || !scan.message(mark, index)) {
        kept = false;
        index++;
        break;
      }
    }
    marks.length = index;
    return kept ? scan.keptPlan() : null;
  }
}

const NO_MARKS: MessageMarks = {
  message: null,
  blocks: 0,
  markable: [],
  lastMarked: null,
  markers: [],
  stringContent: false,
  frozen: true,
};

function marksOf(message: unknown): MessageMarks {
  if (!isRecord(message)) return { ...NO_MARKS, message, frozen: false };
  const content = message.content;
  if (!Array.isArray(content)) {
    return { ...NO_MARKS, message, stringContent: typeof content === 'string' && content.length > 0, frozen: false };
  }
  const marks: MessageMarks = { ...NO_MARKS, message, markable: [], markers: [] };
  marks.frozen = Object.isFrozen(message) && Object.isFrozen(content);
  for (let index = 0; index < content.length; index++) {
    const block = content[index];
    if (!isRecord(block)) continue;
    const offset = marks.blocks++;
    const cacheControl = block.cache_control;
    if (!Object.isFrozen(block) || (typeof cacheControl === 'object' && cacheControl !== null && !Object.isFrozen(cacheControl)))
      marks.frozen = false;
    const ttl = cacheControl === undefined ? null : cacheControlTtl(cacheControl);
    if (ttl !== null) marks.markers.push({ index, ttl });
    if (!isMarkable(block)) continue;
    marks.markable.push({ index, offset });
    if (isRecord(cacheControl)) marks.lastMarked = { index, offset };
  }
  return marks;
}

/** As `planCacheFields` reads a block: thinking blocks and empty text cannot carry a marker. */
function isMarkable(block: JsonRecord): boolean {
  return block.type !== 'thinking' && block.type !== 'redacted_thinking' && !(block.type === 'text' && block.text === '');
}

const samePlace = (left: Place, right: Place): boolean =>
  left.zone === right.zone && left.message === right.message && left.index === right.index;

/** A message block found so far, kept as numbers (position -1: none). */
class MessageSlot {
  private message = -1;
  private index = -1;
  private position = -1;

  set(message: number, index: number, position: number): void {
    this.message = message;
    this.index = index;
    this.position = position;
  }

  place(): Place | null {
    return this.position < 0 ? null : { zone: 'messages', message: this.message, index: this.index, position: this.position };
  }
}

/** One pass over a body's blocks in prefix order, as `planCacheFields`' scan, collecting the client's markers beside. */
class PlanScan {
  private position = 0;
  private readonly lastMarkable: Record<'tools' | 'system', Place | null> = { tools: null, system: null };
  private lastMarkedSystem: Place | null = null;
  /** The messages' last markable block, last marked markable block and lookback guard, as they are found. */
  private readonly history = { last: new MessageSlot(), marked: new MessageSlot(), guard: new MessageSlot() };
  /** The client's markers; more than the plan can place means it moves one. */
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
      if (ttl !== null) this.markers.push({ ...place, ttl });
      if (!isMarkable(block)) continue;
      this.lastMarkable[zone] = place;
      if (zone === 'system' && isRecord(cacheControl)) this.lastMarkedSystem = place;
    }
    return this.markers.length <= ANTHROPIC_MAX_BREAKPOINTS;
  }

  /** Message `message`'s blocks; false as `list`. Places are written as numbers: this runs for every message of every body. */
  message(marks: MessageMarks, message: number): boolean {
    const start = this.position;
    this.position += marks.blocks;
    if (marks.markers.length > 0) {
      for (const { index, ttl } of marks.markers) this.markers.push({ zone: 'messages', message, index, position: -1, ttl });
      if (this.markers.length > ANTHROPIC_MAX_BREAKPOINTS) return false;
    }
    const markable = marks.markable;
    if (markable.length === 0) return true;
    const last = markable[markable.length - 1]!;
    this.history.last.set(message, last.index, start + last.offset);
    if (marks.lastMarked) this.history.marked.set(message, marks.lastMarked.index, start + marks.lastMarked.offset);
    const previous = this.previous;
    if (previous !== null && start <= previous) {
      for (let at = markable.length - 1; at >= 0; at--) {
        const { index, offset } = markable[at]!;
        if (start + offset > previous) continue;
        this.history.guard.set(message, index, start + offset);
        break;
      }
    }
    return true;
  }

  /** The plan's choice (as `planCacheFields`), and whether the client's markers are exactly it, 5-minute each. */
  keptPlan(): { lastBreakpointPosition: number | null } | null {
    const tail = (last: Place | null, marked: Place | null) =>
      last && marked && marked.position !== last.position && marked.message === last.message ? marked : null;
    const system = tail(this.lastMarkable.system, this.lastMarkedSystem) ?? this.lastMarkable.system;
    const last = this.history.last.place();
    const history = tail(last, this.history.marked.place()) ?? last;
    const guard = this.history.guard.place();
    const chosen: Place[] = [];
    if (this.lastMarkable.tools) chosen.push(this.lastMarkable.tools);
    if (system) chosen.push(system);
    const previous = this.previous;
    if (history && previous !== null && history.position - previous >= ANTHROPIC_LOOKBACK_POSITIONS) {
      if (guard && guard.position !== history.position) chosen.push(guard);
    }
    if (history) chosen.push(history);
    while (chosen.length > ANTHROPIC_MAX_BREAKPOINTS) chosen.shift();
    if (chosen.length !== this.markers.length) return null;
    for (let at = 0; at < chosen.length; at++) {
      const marker = this.markers[at]!;
      if (marker.ttl !== '5m' || !samePlace(marker, chosen[at]!)) return null;
    }
    return { lastBreakpointPosition: history?.position ?? null };
  }
}
