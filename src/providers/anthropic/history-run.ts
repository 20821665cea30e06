import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AdapterWarning } from '../../model/adapter-warning.js';
import type { Message } from '../../model/content.js';
import type { BlockRecord, CanonicalRequest } from '../../model/request.js';
import { requestBlockSource, requestMessageSource } from '../../model/request-view.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { BreakpointSlot } from './place-breakpoints.js';
import type { Markable, RecordLookup, SlotList } from './slot-list.js';

/** What a converted history message contributes to a body, as `convertMessages` built it. */
export interface RunMessage {
  message: Message;
  /** The message on the wire, frozen and shared by every body (a mark replaces it in that body). */
  wire: MessageParam;
  warnings: readonly AdapterWarning[];
  markerFree: boolean;
}

/**
 * The leading history messages of one session's shared message array, converted by earlier
 * requests: their wire contents and, flattened, their slots, targets and content indexes. The
 * arrays only grow, so the next request of the session copies them in one go (a few memcpys) and
 * converts only the messages after them. Valid while everything before the messages is laid out
 * as when the run started: the same block records (array and index), counter, session zone
 * and slot position; otherwise it starts over.
 */
class HistoryRun {
  readonly messages: RunMessage[] = [];
  readonly wires: MessageParam[] = [];
  readonly slots: BreakpointSlot[] = [];
  readonly targets: Markable[] = [];
  readonly templateIndexes: number[] = [];
  /** Tokens from the request's first slot through each of the run's slots, summed in order from `baseTokens`. */
  readonly cumulative: number[] = [];
  /** Per message: slots and block records through it (records include blocks not sent). */
  private readonly slotEnds: number[] = [];
  private readonly recordEnds: number[] = [];
  /** Indexes of messages with warnings or not marker-free, rare: kept apart so a request need not scan. */
  private readonly notable: number[] = [];

  constructor(
    readonly counter: TokenCounter,
    readonly sessionMessageCount: number,
    readonly blockSource: readonly BlockRecord[],
    readonly recordBase: number,
    readonly slotBase: number,
    /** Tokens of the slots before the run: part of the key, so the running sums hold. */
    readonly baseTokens: number,
  ) {}

  /**
   * The body's first messages: the run's, up to `limit`, with their slots, warnings and messages
   * to validate added to `list` and `warnings` (one copy per array, no work per message).
   */
  cover(limit: number, list: SlotList, records: RecordLookup, warnings: AdapterWarning[]): MessageParam[] {
    const count = Math.min(this.messages.length, limit);
    if (count === 0) return [];
    const messages = this.wires.slice(0, count);
    list.addRun(this, this.slotEnds[count - 1] as number);
    records.skip(this.recordEnds[count - 1] as number);
    for (const index of this.notable) {
      if (index >= count) break;
      const entry = this.messages[index] as RunMessage;
      for (const warning of entry.warnings) warnings.push(warning);
      if (!entry.markerFree) list.messagesToValidate.push(index);
    }
    return messages;
  }

  /** Extend the run by message `index` (the next one), whose slots start at `slotStart` in `list`. */
  extend(index: number, entry: RunMessage, list: SlotList, slotStart: number): void {
    if (index !== this.messages.length) return;
    const added = list.entriesFrom(slotStart);
    for (const slot of added.slots) {
      this.cumulative.push((this.cumulative.at(-1) ?? this.baseTokens) + slot.tokens);
      this.slots.push(slot);
    }
    for (const target of added.targets) this.targets.push(target);
    for (const contentIndex of added.templateIndexes) this.templateIndexes.push(contentIndex);
    this.slotEnds.push(this.slots.length);
    this.recordEnds.push((this.recordEnds.at(-1) ?? 0) + entry.message.content.length);
    if (entry.warnings.length > 0 || !entry.markerFree) this.notable.push(index);
    this.messages.push(entry);
    this.wires.push(entry.wire);
  }
}

const runs = new WeakMap<readonly Message[], HistoryRun>();

/**
 * The run of this request's session, valid for the layout before its messages; null when the
 * request does not share its arrays (built by hand, or `messages`/`blocks` replaced).
 */
export function historyRunFor(
  request: CanonicalRequest,
  list: SlotList,
  records: RecordLookup,
  counter: TokenCounter,
): HistoryRun | null {
  const messageSource = requestMessageSource(request);
  const blockSource = requestBlockSource(request);
  if (messageSource === null || blockSource === null) return null;
  const sessionMessageCount = request.layout.sessionMessageCount;
  const known = runs.get(messageSource);
  const baseTokens = list.tokensBefore(list.slots.length);
  if (
    known &&
    known.counter === counter &&
    known.sessionMessageCount === sessionMessageCount &&
    known.blockSource === blockSource &&
    known.recordBase === records.position &&
    known.slotBase === list.slots.length &&
    known.baseTokens === baseTokens
  ) {
    return known;
  }
  const run = new HistoryRun(counter, sessionMessageCount, blockSource, records.position, list.slots.length, baseTokens);
  runs.set(messageSource, run);
  return run;
}

export type { HistoryRun };
