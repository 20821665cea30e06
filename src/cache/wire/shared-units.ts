import type { ChunkedList } from './chunked-list.js';
import { sameUnitIdentity, type WireUnit } from './wire-unit.js';

type Units = ChunkedList<WireUnit>;

/**
 * The hand-off from normalisation to every later pass: "the first k units of this body are
 * that earlier body's". A session's next body repeats the previous one's units up to the newest
 * change, so the break detector, the token totals, the prefix hashes and the breakpoint scan
 * start at k instead of walking the whole history again on every request. Below k the units
 * are the very same objects, except the few before the messages (rebuilt per body), which may
 * differ in their cache marker only: same text, role, kind and counts (`sameUnitsFrom` says
 * from where they are the same objects, markers included).
 *
 * Units lists are never changed once normalised (every memo over them relies on it). A link
 * names earlier lists by a serial number, not a reference, so a body keeps no earlier body
 * alive; it also names the earlier arrays its predecessor shared with (a keep-alive ping's body
 * judged between two requests must not hide the previous request from the next one).
 */
type SharedUnitsLink = number[];

/**
 * A link's entries, three numbers each: an earlier list's serial, how many leading units repeat
 * it, and from which unit on (up to that length) they are the same objects. One flat array made
 * at its final size: a link lives as long as its list, and three arrays grown by `push` reserved
 * 17 slots each (about 0.6 KB per body, promoted with it).
 */
const ENTRY = 3;

/** Earlier arrays a link remembers: the direct predecessor and a few before it. */
const REMEMBERED_ANCESTORS = 4;

const serials = new WeakMap<Units, number>();
const links = new WeakMap<Units, SharedUnitsLink>();
let nextSerial = 1;

function serialOf(units: Units): number {
  let serial = serials.get(units);
  if (serial === undefined) {
    serial = nextSerial++;
    serials.set(units, serial);
  }
  return serial;
}

/**
 * Record that `units[0..length)` repeat `previous[0..length)`: the same objects from `sameFrom`
 * on, and before it units that differ at most in their cache marker (normalisation's side).
 */
export function recordSharedUnits(units: Units, previous: Units, length: number, sameFrom = 0): void {
  const before = links.get(previous);
  const inherited = before ? Math.min(before.length / ENTRY, REMEMBERED_ANCESTORS - 1) : 0;
  const link: SharedUnitsLink = new Array((1 + inherited) * ENTRY);
  link[0] = serialOf(previous);
  link[1] = length;
  link[2] = Math.min(sameFrom, length);
  for (let index = 0; index < inherited; index++) {
    const from = index * ENTRY;
    const to = from + ENTRY;
    const shared = Math.min(length, before![from + 1]!);
    link[to] = before![from]!;
    link[to + 1] = shared;
    link[to + 2] = Math.min(shared, Math.max(sameFrom, before![from + 2]!));
  }
  links.set(units, link);
}

/**
 * How many leading units `after` repeats of `before`, at least: what normalisation recorded (0
 * when it recorded nothing), then walked on by identity up to `limit`. Below the answer every
 * pair has the same text, role, kind and counts (`sameUnitIdentity` holds; only a cache marker
 * may differ, see `sameUnitsFrom`).
 */
export function sharedUnitCount(after: Units, before: Units, limit = Number.POSITIVE_INFINITY): number {
  const end = Math.min(limit, after.length, before.length);
  if (after === before) return end;
  let shared = Math.min(end, recordedLink(after, before)?.length ?? 0);
  // A cheap guard: the last unit claimed must still repeat in both lists.
  if (shared > 0 && !sameUnitIdentity(after.at(shared - 1)!, before.at(shared - 1)!)) shared = 0;
  // Then on by identity, a whole chunk at a time where the two lists share its storage.
  while (shared < end) {
    const sharedEnd = after.sharedStorageEnd(before, shared);
    if (sharedEnd > shared) shared = Math.min(end, sharedEnd);
    else if (after.at(shared) === before.at(shared)) shared++;
    else break;
  }
  return shared;
}

/**
 * The range `[from, to)` of units that are the same objects in both arrays (markers included),
 * by what normalisation recorded: empty when it recorded nothing.
 */
export function sameUnitsFrom(after: Units, before: Units): { from: number; to: number } {
  if (after === before) return { from: 0, to: after.length };
  const link = recordedLink(after, before);
  const to = Math.min(after.length, before.length, link?.length ?? 0);
  const from = Math.min(to, link?.sameFrom ?? 0);
  if (to > from && after.at(to - 1) !== before.at(to - 1)) return { from: 0, to: 0 };
  return { from, to };
}

function recordedLink(after: Units, before: Units): { length: number; sameFrom: number } | null {
  const link = links.get(after);
  const serial = serials.get(before);
  if (!link || serial === undefined) return null;
  for (let at = 0; at < link.length; at += ENTRY) {
    if (link[at] === serial) return { length: link[at + 1]!, sameFrom: link[at + 2]! };
  }
  return null;
}
