import type { JsonRecord } from '../../cache/wire/json-helpers.js';
import { cacheControlTtl } from '../../cache/wire/normalize-anthropic.js';
import { ANTHROPIC_LOOKBACK_POSITIONS, ANTHROPIC_MAX_BREAKPOINTS } from '../../providers/anthropic/models.js';
import { type BlockAt, type MessagesCheckpoint, scanBlocks, scanBlocksFrom } from './plan-block-scan.js';
import type { WireRoute } from './wire-route.js';

const LONG_MARKER = { type: 'ephemeral', ttl: '1h' };
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface PlanOptions {
  /** TTL of Anthropic breakpoints ['5m']. */
  ttl?: '5m' | '1h';
  /** OpenAI `prompt_cache_retention` to set when the client sets none [left alone]. */
  retention?: 'in_memory' | '24h';
  /** Ask Anthropic for `diagnostics` on every request [true]. */
  diagnostics?: boolean;
  /**
   * `cachet proxy`: judge the client's own body and the planned one with the cache model after
   * each reply, for what the plan saved (`proxy.forwarded.plan`) [true]. About 0.5 ms of CPU per
   * 50 KB request (one model while the plan keeps the client's markers).
   */
  savings?: boolean;
  /**
   * `auto`: move the per-turn paragraphs of an Anthropic system prompt (present date/time and
   * recalled memories on sight, others once they differ from the conversation's first request)
   * into a turn-scoped tail in the turn's user message (see `spliceVolatileSystem`): the one
   * content change `--plan` makes, opt-in. `off` [default].
   */
  volatile?: 'auto' | 'off';
}

/** What the conversation knows from its previous exchange. */
export interface PlanContext {
  conversationId: string;
  /** `id` of the previous reply, for `diagnostics.previous_message_id` (null on the first request). */
  previousResponseId: string | null;
  /** Block position (see `blockCount`) of the previous request's last breakpoint, for the lookback guard. */
  previousBreakpointPosition: number | null;
  /**
   * The previous body's `PlannedBody.messagesCheckpoint` (null: none yet): when this body starts
   * with the same deep-frozen message objects, their blocks are not walked again. Absent: every
   * block is walked and no checkpoint is made.
   */
  messagesCheckpoint?: MessagesCheckpoint | null;
}

export interface PlannedBody {
  body: JsonRecord;
  /** Block position of the last breakpoint placed, to pass back as `previousBreakpointPosition`. */
  lastBreakpointPosition: number | null;
  /** Paths of the markers placed, for the record. */
  breakpoints: string[];
  /** Indexes of the messages holding a block the client marked (their markers are removed), in order. */
  clientMarkedMessages?: number[];
  /** What the next body of the conversation may resume the scan from (see `PlanContext.messagesCheckpoint`). */
  messagesCheckpoint?: MessagesCheckpoint | null;
}

/**
 * `--plan`: rewrite the cache fields of a body, never its content. Anthropic: the client's
 * markers are replaced with Cachet's plan (end of tools, end of system, end of history, and a
 * lookback guard on the previous request's last block when the new end is 20 or more block
 * positions past it), all with one TTL (1 hour up to the client's last 1-hour marker). A client tail is kept out of the cache as the client
 * placed it: when the client's last marker of the system prompt or of the final message has
 * blocks after it (volatile text sent with this request only), that zone's marker stays there,
 * so the plan neither writes the tail at the write premium nor reads less than the client did, plus `diagnostics` opt-in. OpenAI: `prompt_cache_key`
 * set to the conversation id when absent, and the retention when asked.
 *
 * Returns a new body object; `body` is never modified. Copy on write: only the objects the plan
 * edits are copied (the blocks whose markers it removes or places, their messages and lists, and
 * the messages whose string content it writes as one text block); every other message, block
 * and list is `body`'s own object, shared. Treat both as read-only afterwards.
 *
 * @example
 * const planned = planCacheFields('anthropic', body, { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: null });
 * JSON.stringify(planned.body); // the same content, Cachet's markers
 */
export function planCacheFields(
  route: WireRoute,
  body: JsonRecord,
  context: PlanContext,
  options: PlanOptions = {},
): PlannedBody {
  if (route !== 'anthropic') {
    const planned: JsonRecord = { ...body };
    if (typeof planned.prompt_cache_key !== 'string') planned.prompt_cache_key = context.conversationId;
    if (options.retention && planned.prompt_cache_retention === undefined) planned.prompt_cache_retention = options.retention;
    return { body: planned, lastBreakpointPosition: null, breakpoints: [], clientMarkedMessages: [], messagesCheckpoint: null };
  }
  const planned: JsonRecord = { ...body };
  delete planned.cache_control;
  const marker = options.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const copies = new PlanCopies(planned);
  const previous = context.previousBreakpointPosition;
  const resumable = context.messagesCheckpoint !== undefined;
  const resumed = resumable ? scanBlocksFrom(copies, context.messagesCheckpoint ?? null) : null;
  const scan = resumed ? resumed.scan : scanBlocks(copies, previous);
  // The client's tail (a marker followed by markable blocks in the same place) keeps its zone's marker.
  const tail = (last: BlockAt | null, marked: BlockAt | null) =>
    last && marked && marked.position !== last.position && marked.message === last.message ? marked : null;
  const tools = scan.lastMarkable.tools;
  const system = tail(scan.lastMarkable.system, scan.lastMarked.system) ?? scan.lastMarkable.system;
  // The history's tail may also be a whole last message after the client's last marker (the message
  // before it): a request-scoped tail sent as its own message, or a final request that writes nothing new.
  const lastMessage = scan.lastMarkable.messages;
  const markedBefore = scan.lastMarked.messages;
  const messageTail =
    lastMessage && markedBefore && markedBefore.message !== null && markedBefore.message === (lastMessage.message ?? 0) - 1
      ? markedBefore
      : null;
  const history = tail(lastMessage, markedBefore) ?? messageTail ?? lastMessage;
  // A client's 1-hour breakpoint is its TTL choice (a pause it expects, as Cachet's own sessions
  // mark a turn's end): the plan's markers up to its last one keep 1 hour, so the plan never lets
  // expire what the client kept (1-hour markers before 5-minute ones, as the API requires).
  let longUntil = -1;
  for (const block of scan.clientMarked) {
    const own = copies.block(block);
    if (block.position > longUntil && cacheControlTtl(own.cache_control) === '1h') longUntil = block.position;
    delete own.cache_control;
  }

  const chosen: BlockAt[] = [];
  if (tools) chosen.push(tools);
  if (system) chosen.push(system);
  if (history && previous !== null && history.position - previous >= ANTHROPIC_LOOKBACK_POSITIONS) {
    // The previous request's entry ends at `previous`: a marker there lets this request find it.
    // A resumed scan did not look for it: the whole scan finds it (markers play no part in it).
    const guard = scan.guard === undefined ? scanBlocks(copies, previous).guard : scan.guard;
    if (guard && guard.position !== history.position) chosen.push(guard);
  }
  if (history) chosen.push(history);
  // At most four: the tools marker goes first (the system marker covers tools as well).
  while (chosen.length > ANTHROPIC_MAX_BREAKPOINTS) chosen.shift();
  for (const entry of chosen)
    copies.block(entry).cache_control = entry.position <= longUntil ? { ...LONG_MARKER } : { ...marker };
  if (options.diagnostics ?? true) {
    if (!isRecord(planned.diagnostics)) planned.diagnostics = { previous_message_id: context.previousResponseId };
  }
  const clientMarkedMessages: number[] = [];
  for (const block of scan.clientMarked) {
    if (block.message !== null && clientMarkedMessages.at(-1) !== block.message) clientMarkedMessages.push(block.message);
  }
  return {
    body: planned,
    lastBreakpointPosition: history?.position ?? null,
    breakpoints: chosen.map(pathOf),
    clientMarkedMessages,
    messagesCheckpoint: resumed?.checkpoint ?? null,
  };
}

/**
 * The planned body's objects the plan edits, copied once each on first write: a list (tools,
 * system, messages, a message's content) is copied before one of its items is replaced, a
 * message before its content is, a block before its markers change. Everything else stays the
 * client's object (a deep copy of every request cost as much as judging it, and shared blocks
 * let the planned cache model settle them by identity).
 */
class PlanCopies {
  private readonly ownLists = new Set<unknown[]>();
  private readonly ownBlocks = new Set<object>();

  constructor(readonly body: JsonRecord) {}

  /** The planned body's list at `key` ('tools', 'system', 'messages'), copied if it is still the client's. */
  list(key: 'tools' | 'system' | 'messages'): unknown[] {
    return this.own(this.body, key);
  }

  /** Message `index`'s content list, the message and the messages list copied if still the client's. */
  content(index: number): unknown[] {
    const messages = this.list('messages');
    const message = messages[index] as JsonRecord;
    if (!this.ownBlocks.has(message)) {
      const copy = { ...message };
      this.ownBlocks.add(copy);
      messages[index] = copy;
      return this.own(copy, 'content');
    }
    return this.own(message, 'content');
  }

  /** Message `index` with its non-empty string content as one text block (the same tokens, now markable). */
  textBlockContent(index: number, text: string): unknown[] {
    const messages = this.list('messages');
    const content = [{ type: 'text', text }];
    const copy = { ...(messages[index] as JsonRecord), content };
    this.ownBlocks.add(copy);
    this.ownLists.add(content);
    this.ownBlocks.add(content[0]!);
    messages[index] = copy;
    return content;
  }

  /** The planned body's block at `at`, ready to edit. */
  block(at: BlockAt): JsonRecord {
    const list = at.zone === 'messages' ? this.content(at.message!) : this.list(at.zone);
    const block = list[at.index] as JsonRecord;
    if (this.ownBlocks.has(block)) return block;
    const copy = { ...block };
    this.ownBlocks.add(copy);
    list[at.index] = copy;
    return copy;
  }

  private own(holder: JsonRecord, key: string): unknown[] {
    const list = holder[key] as unknown[];
    if (this.ownLists.has(list)) return list;
    const copy = [...list];
    this.ownLists.add(copy);
    holder[key] = copy;
    return copy;
  }
}

function pathOf(block: BlockAt): string {
  if (block.zone === 'messages') return `messages[${block.message}].content[${block.index}]`;
  return `${block.zone}[${block.index}]`;
}
