import type { CacheBreakCause } from '../../events/catalog.js';
import type { ProviderId } from '../../providers/adapter.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { unitsOf } from '../wire/body-units.js';
import { cacheHorizon, cacheRulesFor, unitTokens } from '../wire/cache-rules.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { sharedUnitCount } from '../wire/shared-units.js';
import { type NormalizedWireBody, sameUnitIdentity, type WireUnit, type WireZone } from '../wire/wire-unit.js';
import { clockChangedAt } from './clock-pattern.js';

/** Where two requests first differ inside the part the first one could have cached. */
export interface WireDivergence {
  zone: WireZone;
  /** Wire path of the block (in `b` when the block is new there, otherwise in `a`). */
  path: string;
  /** UTF-8 byte offset of the first differing byte within that block's JSON (markers removed). */
  byteOffset: number;
  /** Short excerpt of `a` around the divergence ('' when `b` has no such block). */
  before: string;
  /** Short excerpt of `b` around the divergence ('' when `b` ends there). */
  after: string;
}

/** The shape `cachet diff --json` prints. */
export interface WireDiff {
  /** The two bodies are byte-identical as JSON. */
  identical: boolean;
  /**
   * In `cachet diff`: the first divergence anywhere in the bodies (null only when `b` just
   * appends or drops `a`'s turn tail). In `WireDiffReport`: the first divergence inside the
   * part `a` could have cached (see `byteDivergence` for the other).
   */
  firstDivergence: WireDivergence | null;
  cause: CacheBreakCause | null;
  /**
   * Tokens `a` could have cached (up to its last breakpoint, or all of it under automatic
   * caching) that `b` cannot read because of the divergence; 0 when no breakpoint covered it.
   */
  cacheImpact: number;
}

/** `WireDiff` with the details programs and the live detector use. */
export interface WireDiffReport extends WireDiff {
  /** The first divergence anywhere, inside or beyond the cacheable part (null for appends and dropped tails). */
  byteDivergence: WireDivergence | null;
  /** Cause of `byteDivergence`; equals `cause` when the divergence lies inside the cacheable part. */
  byteCause: CacheBreakCause | null;
  /** Index (in `a`'s units, or `b`'s when `a` has none there) of `byteDivergence`, or null. */
  byteUnitIndex: number | null;
  /** Index (in `a`'s units) of the first divergent unit, or null. */
  unitIndex: number | null;
  /** Units of `a` that could have been cached (see `cacheHorizon`). */
  horizon: number;
  /** The turn-tail text of `a`'s last message that `b` no longer carries (healthy), or null. */
  droppedTail: { messageIndex: number; text: string } | null;
  /** One sentence saying what changed and why it matters. */
  explanation: string;
  a: NormalizedWireBody;
  b: NormalizedWireBody;
}

export interface DiffOptions {
  /** Wire format of both bodies; detected from each body's shape when absent. */
  format?: ProviderId;
  /** Counts `cacheImpact`; Anthropic's estimator under Anthropic rules, o200k otherwise. */
  counter?: TokenCounter;
}

const EXCERPT_BEFORE = 24;
const EXCERPT_AFTER = 56;

/**
 * Compare two wire bodies of one session block by block and name the first divergence in
 * the prefix `a` could have cached, with its likely cause. Healthy successors (which only
 * append, or drop `a`'s turn-tail text from its last user message) give `firstDivergence:
 * null`. Works for Anthropic, OpenAI Chat and Responses, OpenRouter and OpenAI-compatible
 * bodies.
 *
 * @example
 * const report = diffWireBodies(previousBody, nextBody);
 * if (report.cause) console.log(report.cause, report.firstDivergence?.path); // 'clock' 'system[1]'
 */
export function diffWireBodies(a: unknown, b: unknown, options: DiffOptions = {}): WireDiffReport {
  return diffNormalized(
    normalizeWireBody(a, options.format),
    normalizeWireBody(b, options.format),
    JSON.stringify(a) === JSON.stringify(b),
    options.counter,
  );
}

/** `diffWireBodies` on bodies already normalized. */
export function diffNormalized(
  a: NormalizedWireBody,
  b: NormalizedWireBody,
  identical = false,
  counter?: TokenCounter,
): WireDiffReport {
  const horizon = cacheHorizon(a);
  const found = firstDivergentUnit(a, b);
  const noByteDivergence = { byteDivergence: null, byteCause: null, byteUnitIndex: null };
  if (found === null || found.droppedTail !== null) {
    const droppedTail = found?.droppedTail ?? null;
    return {
      identical,
      horizon,
      a,
      b,
      ...noByteDivergence,
      firstDivergence: null,
      cause: null,
      cacheImpact: 0,
      unitIndex: null,
      droppedTail,
      explanation: identical
        ? 'The bodies are identical.'
        : droppedTail
          ? "b keeps every block a could have cached except a's turn tail, which is never persisted."
          : 'b keeps every block a could have cached and only adds after it.',
    };
  }
  const { index, divergence, cause } = found;
  const within = index < horizon;
  const cacheImpact = within ? tokensBetween(a, index, horizon, counter ?? defaultCounter(a)) : 0;
  const where = `${divergence.zone} differ first at ${divergence.path} (byte ${divergence.byteOffset}): ${causeSentence(cause)}`;
  return {
    identical,
    horizon,
    a,
    b,
    byteDivergence: divergence,
    byteCause: cause,
    byteUnitIndex: index,
    firstDivergence: within ? divergence : null,
    cause: within ? cause : null,
    cacheImpact,
    unitIndex: within ? index : null,
    droppedTail: null,
    explanation: within
      ? `${where}; everything cached after this point must be written again.`
      : `${where}; no breakpoint of a covers it, so nothing a cached is lost.`,
  };
}

interface DivergentUnit {
  index: number;
  divergence: WireDivergence;
  cause: CacheBreakCause;
  droppedTail: null;
}

/** The first unit where `b` stops repeating `a`: a divergence, a dropped turn tail, or null when `b` only appends. */
function firstDivergentUnit(
  a: NormalizedWireBody,
  b: NormalizedWireBody,
): DivergentUnit | { droppedTail: { messageIndex: number; text: string } } | null {
  // Units normalisation handed on as the same objects need no comparison.
  const [aUnits, bUnits] = [unitsOf(a), unitsOf(b)];
  for (let index = sharedUnitCount(bUnits, aUnits); index < aUnits.length; index++) {
    const before = aUnits.at(index)!;
    const after = bUnits.at(index);
    if (after && sameUnitIdentity(before, after)) continue;
    const tail = droppedTurnTail(a, b, before);
    if (tail !== null) return { droppedTail: { messageIndex: before.messageIndex!, text: tail } };
    const described = describeDivergence(before, after);
    const cause = classifyDivergence(a, b, described.zone, before, after, described.charIndex);
    const { charIndex: _charIndex, ...divergence } = described;
    return { index, divergence, cause, droppedTail: null };
  }
  return null;
}

function defaultCounter(body: NormalizedWireBody): TokenCounter {
  return cacheRulesFor(body) === 'anthropic' ? anthropicEstimator() : openAICounterOrEstimate();
}

function tokensBetween(body: NormalizedWireBody, from: number, to: number, counter: TokenCounter): number {
  const units = unitsOf(body);
  let total = 0;
  for (let index = from; index < to; index++) total += unitTokens(units.at(index)!, counter);
  return total;
}

/**
 * The turn tail (memory recall, time, matched skills) is true for one request only and never
 * persisted: the next request carries the previous one's last message without it. That is
 * the healthy pattern, not an edit, when what remains of that message is a leading or
 * trailing part of what was sent, or when the whole last message was tail (a trailing
 * system message, or a second non-assistant message after the user or tool message).
 * Returns the dropped text, or null when the divergence is not a dropped tail.
 */
function droppedTurnTail(a: NormalizedWireBody, b: NormalizedWireBody, unit: WireUnit): string | null {
  if (unit.messageIndex === null) return null;
  const lastMessage = a.units.at(-1)?.messageIndex;
  const role = (unit.role ?? '').split(':')[0];
  if (unit.messageIndex !== lastMessage || role === 'assistant') return null;
  const sent = messageText(a.units, unit.messageIndex);
  const keptUnits = b.units.filter((candidate) => candidate.messageIndex === unit.messageIndex);
  const kept = messageText(b.units, unit.messageIndex);
  const sameMessage = keptUnits.length > 0 && keptUnits[0]!.role === unit.role;
  if (sameMessage && role === 'user' && kept.length > 0) {
    if (sent.startsWith(kept)) return sent.slice(kept.length);
    if (sent.endsWith(kept)) return sent.slice(0, sent.length - kept.length);
    return null;
  }
  if (sameMessage) return null;
  const previousRole = (
    a.units.findLast((candidate) => candidate.messageIndex !== null && candidate.messageIndex < unit.messageIndex!)?.role ?? ''
  ).split(':')[0];
  const wholeMessageIsTail = role === 'system' || role === 'developer' || (previousRole !== '' && previousRole !== 'assistant');
  return wholeMessageIsTail ? sent : null;
}

function messageText(units: readonly WireUnit[], messageIndex: number): string {
  return units
    .filter((unit) => unit.messageIndex === messageIndex)
    .map((unit) => unit.tokenText)
    .join('');
}

function describeDivergence(before: WireUnit, after: WireUnit | undefined): WireDivergence & { charIndex: number } {
  const zone = earlierZone(before.zone, after?.zone);
  const path = after && after.zone === zone && before.zone !== zone ? after.path : before.path;
  if (!after) {
    return { zone, path, byteOffset: 0, before: excerpt(before.text, 0), after: '', charIndex: 0 };
  }
  const charIndex = firstDifference(before.text, after.text);
  if (charIndex === -1) {
    // Same bytes, different role or message boundary.
    return {
      zone,
      path,
      byteOffset: 0,
      before: `(${before.role}) ${excerpt(before.text, 0)}`,
      after: `(${after.role}) ${excerpt(after.text, 0)}`,
      charIndex: 0,
    };
  }
  return {
    zone,
    path,
    byteOffset: Buffer.byteLength(before.text.slice(0, charIndex), 'utf8'),
    before: excerpt(before.text, charIndex),
    after: excerpt(after.text, charIndex),
    charIndex,
  };
}

const ZONE_ORDER: Record<WireZone, number> = { params: 0, tools: 1, system: 2, messages: 3 };

/** When a block is inserted or removed the two sides sit in different zones: the earlier one is where the prefix broke. */
function earlierZone(left: WireZone, right: WireZone | undefined): WireZone {
  if (right === undefined) return left;
  return ZONE_ORDER[right] < ZONE_ORDER[left] ? right : left;
}

function classifyDivergence(
  a: NormalizedWireBody,
  b: NormalizedWireBody,
  zone: WireZone,
  before: WireUnit,
  after: WireUnit | undefined,
  charIndex: number,
): CacheBreakCause {
  switch (zone) {
    case 'params':
      return before.path === 'model' && after?.path === 'model' ? 'model-changed' : 'params-changed';
    case 'tools':
      return sameToolSet(a, b) ? 'tool-order' : 'tools-changed';
    case 'system':
      if (after && before.zone === 'system' && after.zone === 'system' && clockChangedAt(before.text, after.text, charIndex))
        return 'clock';
      return 'system-changed';
    case 'messages':
      if (after && clockChangedAt(before.text, after.text, charIndex)) return 'clock';
      return 'history-edited';
  }
}

function sameToolSet(a: NormalizedWireBody, b: NormalizedWireBody): boolean {
  const tools = (body: NormalizedWireBody) =>
    body.units
      .filter((unit) => unit.zone === 'tools')
      .map((unit) => unit.text)
      .sort();
  const left = tools(a);
  const right = tools(b);
  return left.length === right.length && left.every((text, index) => text === right[index]);
}

function firstDifference(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    if (left.charCodeAt(index) !== right.charCodeAt(index)) return index;
  }
  return left.length === right.length ? -1 : length;
}

function excerpt(text: string, index: number): string {
  const start = Math.max(0, index - EXCERPT_BEFORE);
  const end = Math.min(text.length, index + EXCERPT_AFTER);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** A short human reading of each cause, for explanations and the CLI. */
export function causeSentence(cause: CacheBreakCause): string {
  switch (cause) {
    case 'clock':
      return 'date/time-like text changed (a clock in the prefix)';
    case 'tool-order':
      return 'the same tools were sent in a different order';
    case 'tools-changed':
      return 'tool definitions were added, removed or changed';
    case 'system-changed':
      return 'the system prompt changed';
    case 'history-edited':
      return 'earlier history was edited, removed or reordered';
    case 'model-changed':
      return 'the model changed (caches are per model)';
    case 'params-changed':
      return 'a parameter that shapes the prefix changed (tool_choice, thinking, effort where the model keys on it, images, response format, cache key)';
    case 'ttl-expired':
      return 'the cache lifetime passed between the two requests';
    case 'below-minimum':
      return "the prefix is shorter than the provider's minimum cacheable length";
    case 'lookback-exceeded':
      return 'no cache entry lies within the 20 blocks searched back from any breakpoint';
    case 'template-rerender':
      return 'the chat template rendered earlier history differently this time';
    case 'no-breakpoint':
      return 'no cache_control breakpoint covered the part of the prefix the requests shared, although the previous request had a slot free';
    case 'compaction':
      return 'history was rewritten on purpose (compaction): a costed, one-time re-write';
    case 'route-changed':
      return 'the request was served by another upstream provider than the previous one (each upstream has its own cache)';
    case 'unknown':
      return 'the prefix was not read and no structural cause was found';
  }
}
