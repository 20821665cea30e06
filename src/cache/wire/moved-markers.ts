import { resolveAnthropicModel } from '../../providers/anthropic/models.js';
import { providerEntry } from '../../providers/registry.js';
import { sameBlock } from './block-core-memo.js';
import { bodyWithUnitList, unitsOf } from './body-units.js';
import type { ChunkedList } from './chunked-list.js';
import { isRecord, type JsonRecord } from './json-helpers.js';
import { cacheControlTtl } from './normalize-anthropic.js';
import { recordSharedUnits, sameUnitsFrom, sharedUnitCount } from './shared-units.js';
import type { NormalizedWireBody, WireTtl, WireUnit } from './wire-unit.js';

/** A block whose marker differs between the two bodies: where it sits and its marker in the new body. */
interface MovedMarker {
  path: string;
  messageIndex: number | null;
  ttl: WireTtl | null;
}

/** Top-level fields that may differ without changing a unit: the automatic marker (read below) and Cachet's diagnostics. */
const UNREAD_OR_READ_HERE = new Set(['cache_control', 'diagnostics']);
const LISTS = new Set(['tools', 'system', 'messages']);

/**
 * The normalisation of `body`, an Anthropic Messages body that is `clientBody` with cache markers
 * placed or removed (a plan's body: `clientBody`'s objects shared, the edited blocks, their lists
 * and messages copied), made from `client`, `clientBody`'s normalisation, without reading `body`'s
 * history again: `client`'s units with the moved markers' units replaced. Equal to
 * `normalizeWireBody(body, client.format)` (same units, fields and order); null when the two bodies
 * differ in anything but markers (another block, a string content written as a block, another
 * field) or when a moved marker is on a block that draws a warning: normalise `body` then.
 *
 * Walks `body`'s lists by reference (the objects it shares with `clientBody` cost a comparison
 * each) and compares a copied block with the client's without writing its JSON.
 *
 * @example
 * const planned = normalizedWithMovedMarkers(normalizeWireBody(clientBody), clientBody, plannedBody);
 * model.judge(plannedBody, { at, ...(planned ? { normalized: planned } : {}) });
 */
export function normalizedWithMovedMarkers(
  client: NormalizedWireBody,
  clientBody: JsonRecord,
  body: JsonRecord,
  history?: MovedMarkersHistory,
): NormalizedWireBody | null {
  if (providerEntry(client.format).wire !== 'anthropic-messages') return null;
  if (!sameUnreadFields(clientBody, body, client.model)) return null;
  const moved: MovedMarker[] = [];
  const lists =
    movedInList(clientBody.tools, body.tools, 'tools', null, moved) &&
    movedInList(clientBody.system, body.system, 'system', null, moved) &&
    movedInMessages(clientBody.messages, body.messages, moved);
  if (!lists) return null;
  const clientUnits = unitsOf(client);
  const marked = withMarkers(clientUnits, moved);
  if (marked === null) return null;
  if (history) linkToLast(history, clientUnits, marked);
  const units = marked.units;
  const { format, model, warnings, retention, promptCacheMode } = client;
  const automaticBreakpoint = cacheControlTtl(body.cache_control);
  return bodyWithUnitList({ format, model, automaticBreakpoint, warnings: [...warnings], retention, promptCacheMode }, units);
}

/** Every top-level field the same value, but the lists (compared block by block) and the fields no unit reads. */
function sameUnreadFields(clientBody: JsonRecord, body: JsonRecord, model: string): boolean {
  // Diagnostics may differ only while no cache-key parameter of the model reads them.
  if (resolveAnthropicModel(model).cacheKeyParams.some((path) => path.split('.')[0] === 'diagnostics')) return false;
  const differs = (key: string, other: JsonRecord) => !UNREAD_OR_READ_HERE.has(key) && !Object.hasOwn(other, key);
  for (const key of Object.keys(body)) {
    if (differs(key, clientBody)) return false;
    if (!UNREAD_OR_READ_HERE.has(key) && !LISTS.has(key) && body[key] !== clientBody[key]) return false;
  }
  for (const key of Object.keys(clientBody)) if (differs(key, body)) return false;
  return true;
}

/** The moved markers of a list of blocks (tools, system, a message's content); false when the lists differ otherwise. */
function movedInList(
  clientList: unknown,
  list: unknown,
  path: string,
  messageIndex: number | null,
  moved: MovedMarker[],
): boolean {
  if (clientList === list) return true;
  if (!Array.isArray(clientList) || !Array.isArray(list) || clientList.length !== list.length) return false;
  for (let index = 0; index < list.length; index++) {
    const clientBlock: unknown = clientList[index];
    const block: unknown = list[index];
    if (block === clientBlock) continue;
    if (!isRecord(block) || !isRecord(clientBlock) || !sameBlock(clientBlock, block)) return false;
    const ttl = cacheControlTtl(block.cache_control);
    if (ttl !== cacheControlTtl(clientBlock.cache_control)) moved.push({ path: `${path}[${index}]`, messageIndex, ttl });
  }
  return true;
}

function movedInMessages(clientMessages: unknown, messages: unknown, moved: MovedMarker[]): boolean {
  if (clientMessages === messages) return true;
  if (!Array.isArray(clientMessages) || !Array.isArray(messages) || clientMessages.length !== messages.length) return false;
  for (let index = 0; index < messages.length; index++) {
    const clientMessage: unknown = clientMessages[index];
    const message: unknown = messages[index];
    if (message === clientMessage) continue;
    if (!isRecord(message) || !isRecord(clientMessage) || message.role !== clientMessage.role) return false;
    if (!movedInList(clientMessage.content, message.content, `messages[${index}].content`, index, moved)) return false;
  }
  return true;
}

/**
 * What a conversation's last derived body was made from, kept by the caller (one per planned
 * model): the next derived body is recorded as repeating it (`recordSharedUnits`), so the planned
 * model's token totals, prefix hashes and breakpoint scan start where the two part, as they do
 * for a body it normalises itself.
 */
export interface MovedMarkersHistory {
  last?: { client: ChunkedList<WireUnit>; derived: ChunkedList<WireUnit>; moved: readonly number[] };
}

/** A derived units list (never the client's own: its links are normalisation's) and the indexes whose marker it moved. */
interface MarkedUnits {
  units: ChunkedList<WireUnit>;
  moved: number[];
}

/** `units` with each moved marker's unit replaced by its copy with the new marker; null when one is not found or draws a warning. */
function withMarkers(units: ChunkedList<WireUnit>, moved: readonly MovedMarker[]): MarkedUnits | null {
  const builder = units.extend();
  const indexes: number[] = [];
  for (const marker of moved) {
    const index = unitIndexOf(units, marker);
    if (index < 0) return null;
    const unit = units.at(index)!;
    // Markers on thinking and empty text blocks draw warnings, which depend on the marker: normalise afresh.
    if (unit.kind === 'thinking' || (unit.kind === 'text' && unit.tokenText.length === 0)) return null;
    builder.set(index, markedUnit(unit, marker.ttl));
    indexes.push(index);
  }
  return { units: builder.done(), moved: indexes };
}

/**
 * Record that the new derived list repeats the last one where their client lists do (same text,
 * role and counts: only markers differ), and is the same objects from the last index below that
 * where either moved a marker to a different unit (or the client lists' own `sameFrom`).
 */
function linkToLast(history: MovedMarkersHistory, client: ChunkedList<WireUnit>, marked: MarkedUnits): void {
  const last = history.last;
  history.last = { client, derived: marked.units, moved: marked.moved };
  if (!last) return;
  const length = sharedUnitCount(client, last.client);
  if (length === 0) return;
  const same = sameUnitsFrom(client, last.client);
  // Without a recorded range the client lists' leading units may differ in markers: no range of the same objects is claimed.
  let sameFrom = same.to > 0 ? same.from : length;
  for (const index of [...marked.moved, ...last.moved]) {
    if (index < length && index >= sameFrom && marked.units.at(index) !== last.derived.at(index)) sameFrom = index + 1;
  }
  recordSharedUnits(marked.units, last.derived, length, sameFrom);
}

/** Where the moved marker's block is among the units: searched by message index, confirmed by path; -1 when absent (a deferred tool). */
function unitIndexOf(units: ChunkedList<WireUnit>, marker: MovedMarker): number {
  let index = 0;
  if (marker.messageIndex !== null) {
    // Message units come last, in message order: the first unit of the marker's message by bisection.
    let low = 0;
    let high = units.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = units.at(middle)!.messageIndex;
      if (at === null || at < marker.messageIndex) low = middle + 1;
      else high = middle;
    }
    index = low;
  }
  for (; index < units.length; index++) {
    const unit = units.at(index)!;
    if (unit.path === marker.path) return index;
    if (unit.messageIndex !== marker.messageIndex && (marker.messageIndex !== null || unit.messageIndex !== null)) return -1;
  }
  return -1;
}

/**
 * `unit` with marker `ttl`, the same object for the same unit and marker (a conversation's next
 * planned body marks the same blocks again: its units then compare by reference).
 */
const markedUnits = new WeakMap<WireUnit, Map<WireTtl | null, WireUnit>>();

function markedUnit(unit: WireUnit, ttl: WireTtl | null): WireUnit {
  let byTtl = markedUnits.get(unit);
  if (byTtl === undefined) {
    byTtl = new Map();
    markedUnits.set(unit, byTtl);
  }
  let marked = byTtl.get(ttl);
  if (marked === undefined) {
    marked = { ...unit, breakpoint: ttl };
    byTtl.set(ttl, marked);
  }
  return marked;
}
