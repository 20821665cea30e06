import { isDeepFrozen } from '../../model/freeze.js';
import { ChunkedList, type ChunkedListBuilder } from './chunked-list.js';
import { isRecord, type JsonRecord } from './json-helpers.js';
import { recordSharedUnits } from './shared-units.js';
import type { WireUnit } from './wire-unit.js';

/** The units one message gives when its content is a frozen array of frozen blocks, shared by every body that sends it. */
export interface SharedMessageUnits {
  messageIndex: number;
  role: string;
  units: readonly WireUnit[];
  warnings: readonly string[];
  image: boolean;
}

/**
 * What normalisation remembers of a session's last body (keyed by its first message's frozen
 * content array): the shared units each message index had, and where each message's units
 * started. The next body sends the same content arrays at the same indexes up to its newest
 * change, so that run of messages is the last body's units up to one index: the new body's list
 * shares their storage (nothing is copied per unit of history), then the hand-off `recordSharedUnits` tells every later pass where the bodies part.
 */
export interface SessionUnits {
  contents: (readonly unknown[] | undefined)[];
  shared: (SharedMessageUnits | undefined)[];
  /** The last body's units, and its units before the first message. */
  lastUnits: ChunkedList<WireUnit> | null;
  lastLeading: number;
  /** `starts[i]`: the last body's first unit of message `i`; `starts[messageCount]` is its unit count. */
  starts: number[];
  messageCount: number;
  /** Messages of the last body whose shared units carry warnings, ascending. */
  warned: number[];
  /** The last body's first message with an image (Infinity when none). */
  firstImage: number;
  /**
   * The last body's messages: the session's own copy of its array, never the caller's (a caller
   * may edit its array in place and send it again), and how many of its leading messages had
   * shared units.
   */
  lastMessages: unknown[];
  sharedRun: number;
  /** How many leading messages of the body being read are the very objects of `lastMessages` (`repeatedMessageCount`). */
  sameObjects: number;
  /** How many leading messages of the last body are known frozen (a frozen object stays frozen: checked once). */
  frozenRun: number;
}

const sessionsByFirstContent = new WeakMap<readonly unknown[], SessionUnits>();

/** The session a body belongs to, by its first message's frozen content array; null when it has none. */
export function sessionUnitsOf(messages: readonly unknown[]): SessionUnits | null {
  const first = messages[0];
  if (!isRecord(first) || !Array.isArray(first.content) || !Object.isFrozen(first.content)) return null;
  const content = first.content as readonly unknown[];
  let session = sessionsByFirstContent.get(content);
  if (!session) {
    session = {
      contents: [],
      shared: [],
      lastUnits: null,
      lastLeading: 0,
      starts: [],
      messageCount: 0,
      warned: [],
      firstImage: Number.POSITIVE_INFINITY,
      lastMessages: [],
      sharedRun: 0,
      sameObjects: 0,
      frozenRun: 0,
    };
    sessionsByFirstContent.set(content, session);
  }
  return session;
}

/** The shared units message `messageIndex` had in the session's last body, when this body sends the same array and role there. */
export function repeatedMessage(session: SessionUnits, message: unknown, messageIndex: number): SharedMessageUnits | null {
  const before = session.shared[messageIndex];
  if (before === undefined || !isRecord(message)) return null;
  return message.content === session.contents[messageIndex] && (message as JsonRecord).role === before.role ? before : null;
}

/** The content the session's last body sent at `messageIndex` (its blocks' cores serve equal blocks: `cachedCore`'s `like`). */
export function previousContentAt(session: SessionUnits, messageIndex: number): readonly unknown[] | undefined {
  const previous = session.lastMessages[messageIndex];
  return isRecord(previous) && Array.isArray(previous.content) ? previous.content : undefined;
}

/** Remember message `messageIndex`'s shared units (or that it has none) for the session's next body. */
export function rememberMessage(
  session: SessionUnits,
  message: unknown,
  messageIndex: number,
  shared: SharedMessageUnits | null,
): void {
  session.contents[messageIndex] = shared && isRecord(message) ? (message.content as readonly unknown[]) : undefined;
  session.shared[messageIndex] = shared ?? undefined;
}

/** How many leading messages repeat the session's last body, message by message (0 when its units before them differ in number). */
export function repeatedMessageCount(session: SessionUnits, messages: readonly unknown[], leading: number): number {
  if (session.lastUnits === null || session.lastLeading !== leading) {
    session.frozenRun = 0;
    session.sameObjects = 0;
    return 0;
  }
  // Only the last body's leading run of shared messages can repeat. A frozen message object it
  // sent at the same index (the converter shares them) has the same role and content array.
  const limit = Math.min(messages.length, session.sharedRun);
  const last = session.lastMessages;
  // The same message objects first, in a loop over pointers alone (it runs over the whole history
  // on every body), then whether the ones not yet known frozen are. `last` is the session's own
  // copy: the caller's array, even the very same one, may have been edited in place since.
  let identical = 0;
  // Object.is: the same reference answers without loading the object (=== loads its map for the
  // NaN case), and a long capture's history objects are cold. Only records reach here (`sharedRun`).
  while (identical < limit && Object.is(messages[identical], last[identical])) identical++;
  session.sameObjects = identical;
  let frozenRun = Math.min(identical, session.frozenRun);
  while (frozenRun < identical && isDeepFrozen(messages[frozenRun])) frozenRun++;
  // Past the run of the same frozen objects a message repeats when it sends the same content array and role.
  let count = frozenRun;
  while (count < limit) {
    const message = messages[count];
    const sameFrozen = message === last[count] && isDeepFrozen(message);
    if (!sameFrozen && repeatedMessage(session, message, count) === null) break;
    count++;
  }
  // The next body compares with this one's messages (`rememberBody`), the first `frozenRun` checked.
  session.frozenRun = frozenRun;
  return count;
}

/**
 * Every field but the cache marker equal: a unit before the messages (rebuilt per body) with the
 * same content as the last body's. `countable` is derived from the same block as `text` (a tool
 * definition rebuilt per body gives a new but equal one), so equal texts stand for it.
 */
function sameContent(left: WireUnit, right: WireUnit): boolean {
  return (
    left.zone === right.zone &&
    left.path === right.path &&
    left.text === right.text &&
    left.role === right.role &&
    left.messageIndex === right.messageIndex &&
    left.tokenText === right.tokenText &&
    left.tokenKind === right.tokenKind &&
    (left.countable === null) === (right.countable === null) &&
    left.fixedTokens === right.fixedTokens &&
    left.block === right.block &&
    left.kind === right.kind
  );
}

/** What a body read so far repeats of the session's last body (see `recordSharedUnits`). */
export interface RepeatedUnits {
  /** The units so far, to push the rest onto; or the last body's very list when the body repeats all of it. */
  units: ChunkedListBuilder<WireUnit> | ChunkedList<WireUnit>;
  /** Units `0..shared` repeat the last body's; from `sameFrom` on they are its very objects. */
  shared: number;
  sameFrom: number;
}

/**
 * The body's units so far: its `leading` units, then the units of the first `repeated` of its
 * `messageCount` messages, the last body's storage shared. A leading unit equal to the last
 * body's, marker included, is replaced by its object.
 */
export function unitsWithRepeatedRun(
  session: SessionUnits,
  leading: WireUnit[],
  repeated: number,
  messageCount: number,
): RepeatedUnits {
  const last = session.lastUnits;
  if (last === null) return { units: builderOf(leading), shared: 0, sameFrom: 0 };
  const { shared, sameFrom } = sameLeading(session, leading);
  if (repeated === 0) return { units: builderOf(leading), shared, sameFrom: Math.min(sameFrom, shared) };
  const end = session.starts[repeated]!;
  // The last body again, every unit the same object (a body judged by two passes): its very
  // list, never changed once normalised, so later passes find everything shared at once.
  if (
    shared === leading.length &&
    sameFrom === 0 &&
    end === last.length &&
    repeated === session.messageCount &&
    repeated === messageCount
  ) {
    return { units: last, shared: end, sameFrom: 0 };
  }
  // The run's units are the last body's (its leading count is this body's: `repeatedMessageCount`),
  // then the leading units this body rebuilt where they differ.
  const units = last.extend(end);
  for (let index = 0; index < leading.length; index++) units.set(index, leading[index]!);
  return shared < leading.length ? { units, shared, sameFrom: Math.min(sameFrom, shared) } : { units, shared: end, sameFrom };
}

/** How many leading units have the last body's content (`shared`), and from which on they are its very objects (`sameFrom`). */
function sameLeading(session: SessionUnits, leading: WireUnit[]): { shared: number; sameFrom: number } {
  const last = session.lastUnits!;
  let shared = 0;
  let sameFrom = 0;
  while (shared < leading.length && shared < session.lastLeading && sameContent(leading[shared]!, last.at(shared)!)) {
    if (leading[shared]!.breakpoint === last.at(shared)!.breakpoint) leading[shared] = last.at(shared)!;
    else sameFrom = shared + 1;
    shared++;
  }
  return { shared, sameFrom };
}

function builderOf(units: readonly WireUnit[]): ChunkedListBuilder<WireUnit> {
  const builder = ChunkedList.empty<WireUnit>().extend();
  for (const unit of units) builder.push(unit);
  return builder;
}

/**
 * After a body is read: where its messages from `from` on start, which carry warnings or an
 * image, and the hand-off to later passes (how many leading units it shares with the last body).
 */
export function rememberBody(
  session: SessionUnits,
  body: {
    units: ChunkedList<WireUnit>;
    shared: number;
    sameFrom: number;
    leading: number;
    from: number;
    starts: readonly number[];
    messages: readonly unknown[];
  },
): void {
  const last = session.lastUnits;
  const { units, from, starts, messages } = body;
  const messageCount = messages.length;
  if (units === last) {
    // The last body again (`unitsWithRepeatedRun`): only message objects may be new.
    copyMessages(session, messages);
    return;
  }
  if (last !== null) {
    // Known to be the same objects up to `shared`; the walk on from there stops at the first change.
    let shared = body.shared;
    while (shared < units.length && shared < last.length && units.at(shared) === last.at(shared)) shared++;
    recordSharedUnits(units, last, shared, body.sameFrom);
  }
  session.warned = session.warned.filter((index) => index < from);
  for (let index = from; index < messageCount; index++) {
    const shared = session.shared[index];
    if (shared !== undefined && session.contents[index] !== undefined && shared.warnings.length > 0) session.warned.push(index);
  }
  if (session.firstImage >= from) {
    session.firstImage = Number.POSITIVE_INFINITY;
    for (let index = from; index < messageCount; index++) {
      if (session.shared[index]?.image && session.contents[index] !== undefined) {
        session.firstImage = index;
        break;
      }
    }
  }
  session.starts.length = from;
  for (const start of starts) session.starts.push(start);
  session.lastUnits = units;
  session.lastLeading = body.leading;
  session.messageCount = messageCount;
  copyMessages(session, messages);
  // Every message below `from` repeated a shared one; the run goes on while they are shared.
  let run = Math.min(from, messageCount);
  while (run < messageCount && session.contents[run] !== undefined && session.shared[run] !== undefined) run++;
  session.sharedRun = run;
}

/** The session's copy of `messages`, rewritten from the first message that is not the same object (the rest are). */
function copyMessages(session: SessionUnits, messages: readonly unknown[]): void {
  const copy = session.lastMessages;
  if (copy.length > messages.length) copy.length = messages.length;
  // `sameObjects` never passes the copy's end (the walk stops at the last body's message count).
  let index = session.sameObjects;
  for (; index < copy.length; index++) copy[index] = messages[index];
  for (; index < messages.length; index++) copy.push(messages[index]);
}
