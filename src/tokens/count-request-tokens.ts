import { ValidationError } from '../model/errors.js';
import type { CanonicalRequest, Zone } from '../model/request.js';
import { requestBlockAt, requestBlockCount, requestMessageAt, requestMessageCount } from '../model/request-view.js';
import type { CountableItem, TokenCounter } from './token-counter.js';
import { TwoGenerationMap } from './two-generation-map.js';

/** Tokens of a request per zone. `total` is their sum; framing tokens (role markers) are not included. */
export interface RequestTokenCount {
  global: number;
  session: number;
  history: number;
  tail: number;
  total: number;
}

type ZoneTotals = [global: number, session: number, history: number];
const ZONE_SLOT: Record<Exclude<Zone, 'tail'>, 0 | 1 | 2> = { global: 0, session: 1, history: 2 };

/** Prefix memo entries per generation and counter (at most twice this are kept). */
const PREFIX_GENERATION_ENTRIES = 250_000;
const prefixMemos = new WeakMap<TokenCounter, TwoGenerationMap<string, ZoneTotals>>();

/**
 * Count a request's tokens per zone. Cumulative counts are memoised per prefix hash (for each
 * counter and calibration revision), so the next request of a session costs work for its new
 * blocks and its tail only, however long the history: the walk back from the end stops at the
 * first prefix already counted.
 *
 * @example
 * const request = assemble(session);
 * const tokens = countRequestTokens(request, counterForModel('anthropic', request.model));
 * tokens.history; // tokens of the append-only history
 */
export function countRequestTokens(request: CanonicalRequest, counter: TokenCounter): RequestTokenCount {
  // Entries are read one by one (not `request.blocks`), so a lazily built request is not copied.
  const tailCount = request.tail.items.length;
  const persisted = requestBlockCount(request) - tailCount;
  const messageCount = requestMessageCount(request);
  const staticCount = request.tools.length + request.system.length;
  let memo = prefixMemos.get(counter);
  if (!memo) {
    memo = new TwoGenerationMap(PREFIX_GENERATION_ENTRIES);
    prefixMemos.set(counter, memo);
  }
  // Zones of persisted blocks follow from these two figures; the hash chain covers the rest.
  const keyPrefix = `${counter.revision ?? 0}:${request.layout.globalToolCount}:${request.layout.sessionMessageCount}:`;

  // Walk back from the last persisted block to the longest prefix already counted.
  const pending: Array<{ index: number; item: CountableItem }> = [];
  let totals: ZoneTotals = [0, 0, 0];
  let messageIndex = messageCount - 1;
  let contentIndex = (requestMessageAt(request, messageIndex)?.content.length ?? 0) - 1;
  for (let index = persisted - 1; index >= 0; index--) {
    const record = requestBlockAt(request, index);
    if (!record) break;
    const known = memo.get(keyPrefix + record.prefixHash);
    if (known) {
      totals = known;
      break;
    }
    let item: CountableItem | undefined;
    if (index >= staticCount) {
      while (contentIndex < 0 && messageIndex > 0) {
        messageIndex--;
        contentIndex = (requestMessageAt(request, messageIndex)?.content.length ?? 0) - 1;
      }
      item = requestMessageAt(request, messageIndex)?.content[contentIndex];
      contentIndex--;
    } else if (index >= request.tools.length) {
      item = request.system[index - request.tools.length];
    } else {
      item = request.tools[index];
    }
    if (!item) throw new ValidationError(`request.blocks[${index}]`, 'a block record matching the request content');
    pending.push({ index, item });
  }
  for (let position = pending.length - 1; position >= 0; position--) {
    const entry = pending[position] as { index: number; item: CountableItem };
    const record = requestBlockAt(request, entry.index);
    if (!record || record.zone === 'tail')
      throw new ValidationError(`request.blocks[${entry.index}].zone`, 'a persisted zone before the tail');
    const next: ZoneTotals = [totals[0], totals[1], totals[2]];
    next[ZONE_SLOT[record.zone]] += counter.countBlock(entry.item) + loadedDefinitionTokens(entry.item, request, counter);
    memo.set(keyPrefix + record.prefixHash, next);
    totals = next;
  }
  let tail = 0;
  for (const item of request.tail.items) tail += counter.countBlock(item);
  return { global: totals[0], session: totals[1], history: totals[2], tail, total: totals[0] + totals[1] + totals[2] + tail };
}

/**
 * A tool result that loads deferred tools (`toolReferences`) brings their definitions into the
 * prompt at that place (Anthropic renders each `tool_reference` as the definition): counted
 * there, as the cache models count it.
 */
function loadedDefinitionTokens(item: CountableItem, request: CanonicalRequest, counter: TokenCounter): number {
  if (!('type' in item) || item.type !== 'tool_result' || !item.toolReferences?.length || !request.deferredTools) return 0;
  let tokens = 0;
  for (const name of item.toolReferences) {
    const definition = request.deferredTools.tools.find((tool) => tool.name === name);
    if (definition) tokens += counter.countBlock(definition);
  }
  return tokens;
}
