import { ANTHROPIC_LOOKBACK_POSITIONS, ANTHROPIC_MAX_BREAKPOINTS } from '../../providers/anthropic/models.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;
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
   * each reply, for what the plan saved (`proxy.forwarded.plan`) [true]. About 1 ms of CPU per
   * 50 KB request; off halves the proxy's own CPU under `--plan`.
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
}

export interface PlannedBody {
  body: JsonRecord;
  /** Block position of the last breakpoint placed, to pass back as `previousBreakpointPosition`. */
  lastBreakpointPosition: number | null;
  /** Paths of the markers placed, for the record. */
  breakpoints: string[];
}

/**
 * `--plan`: rewrite the cache fields of a body, never its content. Anthropic: the client's
 * markers are replaced with Cachet's plan (end of tools, end of system, end of history, and a
 * lookback guard on the previous request's last block when the new end is 20 or more block
 * positions past it), all with one TTL. A client tail is kept out of the cache as the client
 * placed it: when the client's last marker of the system prompt or of the final message has
 * blocks after it (volatile text sent with this request only), that zone's marker stays there,
 * so the plan neither writes the tail at the write premium nor reads less than the client did, plus `diagnostics` opt-in. OpenAI: `prompt_cache_key`
 * set to the conversation id when absent, and the retention when asked. Returns a new object.
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
    return { body: planned, lastBreakpointPosition: null, breakpoints: [] };
  }
  const planned = copyMarkableContainers(body);
  delete planned.cache_control;
  const marker = options.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const blocks = markableBlocks(planned);
  // Read before the client's markers are removed.
  const tailStarts = { system: clientTailStart(blocks, 'system'), messages: clientTailStart(blocks, 'messages') };
  for (const block of blocks) delete block.block.cache_control;
  const lastOf = (zone: 'tools' | 'system' | 'messages') =>
    (zone === 'tools' ? null : tailStarts[zone]) ?? blocks.findLast((block) => block.zone === zone && block.markable);

  const chosen: MarkableBlock[] = [];
  const tools = lastOf('tools');
  const system = lastOf('system');
  const history = lastOf('messages');
  if (tools) chosen.push(tools);
  if (system) chosen.push(system);
  const previous = context.previousBreakpointPosition;
  if (history && previous !== null && history.position - previous >= ANTHROPIC_LOOKBACK_POSITIONS) {
    // The previous request's entry ends at `previous`: a marker there lets this request find it.
    const guard = blocks.findLast((block) => block.markable && block.zone === 'messages' && block.position <= previous);
    if (guard && guard !== history) chosen.push(guard);
  }
  if (history) chosen.push(history);
  // At most four: the tools marker goes first (the system marker covers tools as well).
  while (chosen.length > ANTHROPIC_MAX_BREAKPOINTS) chosen.shift();
  for (const entry of chosen) entry.block.cache_control = { ...marker };
  if (options.diagnostics ?? true) {
    if (!isRecord(planned.diagnostics)) planned.diagnostics = { previous_message_id: context.previousResponseId };
  }
  return {
    body: planned,
    lastBreakpointPosition: history?.position ?? null,
    breakpoints: chosen.map(pathOf),
  };
}

/**
 * A copy of the body in which every object the plan may edit (the body, its tools, system and
 * message lists, each message and each of their blocks) is new; block contents (text, tool
 * inputs, images) are shared with the client's body, which stays untouched. A deep clone of
 * every request cost as much as judging it (`cachet analyze` plans each of 10,000 requests).
 */
function copyMarkableContainers(body: JsonRecord): JsonRecord {
  const copyBlocks = (list: unknown[]) => list.map((item) => (isRecord(item) ? { ...item } : item));
  const planned: JsonRecord = { ...body };
  if (Array.isArray(body.tools)) planned.tools = copyBlocks(body.tools);
  if (Array.isArray(body.system)) planned.system = copyBlocks(body.system);
  if (Array.isArray(body.messages)) {
    planned.messages = body.messages.map((message) => {
      if (!isRecord(message)) return message;
      return Array.isArray(message.content) ? { ...message, content: copyBlocks(message.content) } : { ...message };
    });
  }
  return planned;
}

/**
 * The client's last marked block of `zone` when markable blocks follow it in the same place (the
 * system prompt, or the final message for history): the text after it is the client's tail,
 * which the next request will not repeat. Null when the client marked the zone's end or nothing.
 */
function clientTailStart(blocks: readonly MarkableBlock[], zone: string): MarkableBlock | null {
  const last = blocks.findLast((block) => block.zone === zone && block.markable);
  const marked = blocks.findLast((block) => block.zone === zone && block.markable && isRecord(block.block.cache_control));
  if (!last || !marked || marked === last || marked.message !== last.message) return null;
  return marked;
}

interface MarkableBlock {
  block: JsonRecord;
  /** Index in its list (tools, system, or its message's content); the path is written only for the blocks marked. */
  index: number;
  zone: 'tools' | 'system' | 'messages';
  /** Position among the body's content blocks, in prefix order (tools, system, messages). */
  position: number;
  /** Index of the message holding the block (null for tools and system). */
  message: number | null;
  markable: boolean;
}

/**
 * Every block of an Anthropic body in prefix order. String system prompts and string message
 * contents become one text block (the same tokens; the API reads both forms alike) so they
 * can carry a marker. Thinking blocks and empty text cannot.
 */
function markableBlocks(body: JsonRecord): MarkableBlock[] {
  const blocks: MarkableBlock[] = [];
  const push = (block: unknown, index: number, zone: MarkableBlock['zone'], message: number | null = null) => {
    if (!isRecord(block)) return;
    const markable =
      block.type !== 'thinking' && block.type !== 'redacted_thinking' && !(block.type === 'text' && block.text === '');
    blocks.push({ block, index, zone, position: blocks.length, markable, message });
  };
  if (Array.isArray(body.tools)) {
    for (let index = 0; index < body.tools.length; index++) push(body.tools[index], index, 'tools');
  }
  if (typeof body.system === 'string' && body.system.length > 0) body.system = [{ type: 'text', text: body.system }];
  if (Array.isArray(body.system)) {
    for (let index = 0; index < body.system.length; index++) push(body.system[index], index, 'system');
  }
  if (Array.isArray(body.messages)) {
    body.messages.forEach((message, messageIndex) => {
      if (!isRecord(message)) return;
      if (typeof message.content === 'string' && message.content.length > 0) {
        message.content = [{ type: 'text', text: message.content }];
      }
      const content = message.content;
      if (!Array.isArray(content)) return;
      for (let index = 0; index < content.length; index++) push(content[index], index, 'messages', messageIndex);
    });
  }
  return blocks;
}

function pathOf(block: MarkableBlock): string {
  if (block.zone === 'messages') return `messages[${block.message}].content[${block.index}]`;
  return `${block.zone}[${block.index}]`;
}
