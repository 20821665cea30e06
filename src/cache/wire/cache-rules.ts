import { claudeModelId } from '../../providers/anthropic/model-id.js';
import { resolveAnthropicModel } from '../../providers/anthropic/models.js';
import { resolveDeepSeekModel } from '../../providers/deepseek/models.js';
import { resolveOpenAIModel } from '../../providers/openai-chat/models.js';
import type { CacheRules } from '../../providers/provider-entry.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { unitsOf } from './body-units.js';
import { type ChunkedList, ChunkedListBuilder, type IndexedList } from './chunked-list.js';
import { sameUnitsFrom, sharedUnitCount } from './shared-units.js';
import type { NormalizedWireBody, WireTtl, WireUnit } from './wire-unit.js';

export type { CacheRules } from '../../providers/provider-entry.js';

const MINUTE = 60_000;

/**
 * Cache lifetimes in milliseconds [Anthropic prompt-caching docs; OpenAI prompt-caching guide
 * and SDK 6.49 docs for `prompt_cache_retention` / `prompt_cache_options.ttl`, 2026-11-21].
 * OpenAI's in-memory retention is "5 to 10 minutes of inactivity, at most an hour": the model
 * uses the lower bound so it never promises a hit the provider may not give.
 */
export const CACHE_LIFETIMES_MS = {
  anthropic5m: 5 * MINUTE,
  anthropic1h: 60 * MINUTE,
  openAIInMemoryIdle: 5 * MINUTE,
  openAIInMemoryMax: 60 * MINUTE,
  openAI24h: 24 * 60 * MINUTE,
  openAIExplicit: 30 * MINUTE,
  /**
   * Gemini implicit caching: Google documents no lifetime; five idle minutes is the cautious
   * figure the Gemini cache model and the oracle plan with.
   */
  geminiImplicitIdle: 5 * MINUTE,
  /** @deprecated use `openAIInMemoryIdle` */
  openAiInMemoryIdle: 5 * MINUTE,
  /** @deprecated use `openAIInMemoryMax` */
  openAiInMemoryMax: 60 * MINUTE,
  /** @deprecated use `openAI24h` */
  openAi24h: 24 * 60 * MINUTE,
  /** @deprecated use `openAIExplicit` */
  openAiExplicit: 30 * MINUTE,
} as const;

/** The rules a body's provider routes its model to (`providerEntry(format).route(model)`). */
export function cacheRulesFor(body: NormalizedWireBody): CacheRules {
  return providerEntry(body.format).route(body.model).rules;
}

/** The id in the rules' own model table: OpenRouter's `anthropic/claude-sonnet-4.5` → `claude-sonnet-4-5`. */
export function upstreamModelOf(body: NormalizedWireBody): string {
  return providerEntry(body.format).route(body.model).upstreamModel;
}

/**
 * The Anthropic model id behind a model id: OpenRouter's `anthropic/claude-sonnet-4.5` → `claude-sonnet-4-5`.
 * @deprecated use `upstreamModelOf(body)` (the registry's route), which knows every provider's spelling.
 */
export function anthropicModelId(model: string): string {
  return model.startsWith('anthropic/') ? claudeModelId(model) : model;
}

/**
 * The OpenAI model id behind a model id: OpenRouter's `openai/gpt-4.1` → `gpt-4.1`.
 * @deprecated use `upstreamModelOf(body)`.
 */
export function openAIModelId(model: string): string {
  return model.startsWith('openai/') ? model.slice('openai/'.length) : model;
}
/** @deprecated use `upstreamModelOf(body)`. */
export const openAiModelId = openAIModelId;

/** Smallest prefix the provider caches for the body's model, in tokens (0 for local engines). */
export function minimumPrefixTokens(body: NormalizedWireBody): number {
  const rules = cacheRulesFor(body);
  switch (rules) {
    case 'anthropic':
      return resolveAnthropicModel(upstreamModelOf(body)).effectiveFloorTokens;
    case 'openai':
      return resolveOpenAIModel(upstreamModelOf(body)).minimumPrefixTokens;
    case 'deepseek':
    case 'local':
      return 0;
    default:
      return rules satisfies never;
  }
}

/** The longest time any cache entry under these rules can live without being read. */
export function longestCacheLifetimeMs(rules: CacheRules): number {
  switch (rules) {
    case 'anthropic':
      return CACHE_LIFETIMES_MS.anthropic1h;
    case 'openai':
      return CACHE_LIFETIMES_MS.openAI24h;
    case 'deepseek':
      // Unused units are cleared "within a few hours to a few days": the planning lower bound is the table's.
      return resolveDeepSeekModel('deepseek').lifetimeMs;
    case 'local':
      return Number.POSITIVE_INFINITY;
    default:
      return rules satisfies never;
  }
}

/** The TTL an Anthropic breakpoint placed on a unit gets (top-level automatic caching included). */
export function anthropicBreakpoints(
  body: NormalizedWireBody,
  history?: BreakpointScanHistory,
): ReadonlyArray<{ index: number; ttl: WireTtl }> {
  // Several passes ask per judged request (horizon, lifetime, lookback, reads): one scan per body.
  const known = breakpointsOfBody.get(body);
  const units = unitsOf(body);
  if (known && known.units === units && known.automatic === body.automaticBreakpoint) return known.marks;
  const marks = Object.freeze(scanAnthropicBreakpoints(body, units, history ?? lastScannedAnywhere));
  breakpointsOfBody.set(body, { units, automatic: body.automaticBreakpoint, marks });
  return marks;
}

/**
 * The last body a caller scanned for breakpoints (its units and their own markers), kept by the
 * caller: a cache model keeps one per conversation, so a body whose history repeats the
 * conversation's last body reads only its new units even when many conversations interleave
 * (`cachet analyze`). Without one, the last body scanned anywhere is used.
 */
export interface BreakpointScanHistory {
  last?: { units: ChunkedList<WireUnit>; marks: ReadonlyArray<{ index: number; ttl: WireTtl }> };
}

/** The marks of a body already scanned, while its units and automatic marker are the ones scanned. */
const breakpointsOfBody = new WeakMap<
  NormalizedWireBody,
  { units: ChunkedList<WireUnit>; automatic: WireTtl | null; marks: ReadonlyArray<{ index: number; ttl: WireTtl }> }
>();

/** The history of callers that keep none. */
const lastScannedAnywhere: BreakpointScanHistory = {};

function scanAnthropicBreakpoints(
  body: NormalizedWireBody,
  units: ChunkedList<WireUnit>,
  history: BreakpointScanHistory,
): Array<{ index: number; ttl: WireTtl }> {
  // The units' own markers: a plain loop, except over the units that are the very objects of the
  // last scanned list (the same objects carry the same markers), whose marks are taken from it.
  const last = history.last;
  const same = last ? sameUnitsFrom(units, last.units) : { from: 0, to: 0 };
  const marks: Array<{ index: number; ttl: WireTtl }> = [];
  pushUnitMarks(units, 0, same.from, marks);
  for (const mark of last?.marks ?? []) {
    if (mark.index >= same.to) break;
    if (mark.index >= same.from) marks.push(mark);
  }
  pushUnitMarks(units, same.to, units.length, marks);
  history.last = { units, marks: marks.slice() };
  if (body.automaticBreakpoint) {
    const last = lastCacheableBlock(units);
    if (last !== null && !marks.some((mark) => mark.index === last)) marks.push({ index: last, ttl: body.automaticBreakpoint });
    marks.sort((left, right) => left.index - right.index);
  }
  return marks;
}

/** The markers on units `from..to`, appended to `marks`. */
function pushUnitMarks(
  units: ChunkedList<WireUnit>,
  from: number,
  to: number,
  marks: Array<{ index: number; ttl: WireTtl }>,
): void {
  for (let index = from; index < to; index++) {
    const breakpoint = units.at(index)!.breakpoint;
    if (breakpoint) marks.push({ index, ttl: breakpoint });
  }
}

/** Top-level automatic caching marks the last block that may carry a marker (not thinking, not empty text). */
function lastCacheableBlock(units: IndexedList<WireUnit>): number | null {
  for (let index = units.length - 1; index >= 0; index--) {
    const unit = units.at(index)!;
    if (!unit.block || unit.kind === 'thinking') continue;
    if (unit.kind === 'text' && unit.tokenText.length === 0) continue;
    return index;
  }
  return null;
}

/**
 * How many leading units an earlier request could have left in the cache: under Anthropic
 * rules entries exist only up to the last breakpoint (nothing after it is ever cached); under
 * automatic caching the whole prompt is. A body without any marker under Anthropic rules is
 * compared whole (there is no cache to protect, but the diff is still wanted).
 */
export function cacheHorizon(body: NormalizedWireBody): number {
  if (cacheRulesFor(body) === 'anthropic') {
    const marks = anthropicBreakpoints(body);
    const last = marks.at(-1);
    return last ? last.index + 1 : unitsOf(body).length;
  }
  if (body.promptCacheMode === 'explicit') {
    const last = body.units.findLastIndex((unit) => unit.breakpoint !== null);
    return last + 1;
  }
  return unitsOf(body).length;
}

/** How long the cache a body wrote lives without being read, in milliseconds. */
export function cacheLifetimeMs(body: NormalizedWireBody): number {
  switch (cacheRulesFor(body)) {
    case 'anthropic':
      return anthropicBreakpoints(body).some((mark) => mark.ttl === '1h')
        ? CACHE_LIFETIMES_MS.anthropic1h
        : CACHE_LIFETIMES_MS.anthropic5m;
    case 'openai': {
      if (body.retention === '24h') return CACHE_LIFETIMES_MS.openAI24h;
      const facts = resolveOpenAIModel(upstreamModelOf(body));
      if (facts.explicitBreakpoints) return CACHE_LIFETIMES_MS.openAIExplicit;
      return CACHE_LIFETIMES_MS.openAIInMemoryIdle;
    }
    case 'deepseek':
      return resolveDeepSeekModel(upstreamModelOf(body)).lifetimeMs;
    case 'local':
      return Number.POSITIVE_INFINITY;
  }
}

/**
 * Counts per counter, by kind and bytes: a session re-counts the same history every request.
 * Rebuilt when a re-calibrated estimator changes its revision.
 */
interface CountMemo {
  revision: number;
  byKind: Map<WireUnit['kind'], Map<string, number>>;
  size: number;
}
const countMemo = new WeakMap<TokenCounter, CountMemo>();
const MEMO_LIMIT = 50_000;

/**
 * Tokens of one unit: its content counted as the canonical block it corresponds to (the same
 * `countBlock` rules that size a request's zones) plus fixed media tokens; parameters cost none.
 */
export function unitTokens(unit: WireUnit, counter: TokenCounter): number {
  if (unit.kind === 'param') return 0;
  if (!unit.countable) return unit.fixedTokens;
  const revision = counter.revision ?? 0;
  let memo = countMemo.get(counter);
  if (!memo || memo.revision !== revision) {
    memo = { revision, byKind: new Map(), size: 0 };
    countMemo.set(counter, memo);
  }
  let byText = memo.byKind.get(unit.kind);
  if (!byText) {
    byText = new Map();
    memo.byKind.set(unit.kind, byText);
  }
  let tokens = byText.get(unit.text);
  if (tokens === undefined) {
    tokens = counter.countBlock(unit.countable);
    if (memo.size >= MEMO_LIMIT) {
      memo.byKind.clear();
      memo.size = 0;
      byText = new Map();
      memo.byKind.set(unit.kind, byText);
    }
    byText.set(unit.text, tokens);
    memo.size++;
  }
  return tokens + unit.fixedTokens;
}

/** Running token totals per body and counter (a body is measured by its model and its break detector). */
const bodyTotals = new WeakMap<NormalizedWireBody, { counter: TokenCounter; revision: number; totals: ChunkedList<number> }>();
const lastCounted = new WeakMap<TokenCounter, CountedUnits>();

/** A counted body: its units, each unit's count and the running totals. */
interface CountedUnits {
  revision: number;
  units: ChunkedList<WireUnit>;
  tokens: ChunkedList<number>;
  totals: ChunkedList<number>;
}

/** The last body a conversation counted, kept by its caller (`unitTokenTotals`' third argument). */
export interface UnitTokenHistory {
  last?: CountedUnits;
}

/**
 * Running totals of `unitTokens` over a body's units: entry `i` counts units `0..i`. Computed
 * once per body and counter (bodies are treated as immutable once normalized). Units equal to
 * the last counted body's at the same position keep their counts: the last body of `history`
 * when the caller keeps one per conversation (bodies of many conversations interleave), else
 * the last body this counter counted. The counts and totals share the last body's storage up to
 * where the two bodies part: nothing is copied per unit of history.
 */
export function unitTokenTotals(
  body: NormalizedWireBody,
  counter: TokenCounter,
  history?: UnitTokenHistory,
): ChunkedList<number> {
  const revision = counter.revision ?? 0;
  const known = bodyTotals.get(body);
  if (known && known.counter === counter && known.revision === revision) return known.totals;
  // A session's next body repeats the last one counted: equal units at the same position keep
  // their counts (comparing bytes is cheaper than hashing them for the memo).
  const last = history ? history.last : lastCounted.get(counter);
  const reusable = last && last.revision === revision ? last : null;
  const units = unitsOf(body);
  // Units normalisation handed on as the same objects keep their counts and totals at once.
  const shared = reusable ? sharedUnitCount(units, reusable.units) : 0;
  const tokens = reusable ? reusable.tokens.extend(shared) : new ChunkedListBuilder<number>([], 0);
  const totals = reusable ? reusable.totals.extend(shared) : new ChunkedListBuilder<number>([], 0);
  let sum = shared > 0 ? totals.at(shared - 1)! : 0;
  for (let index = shared; index < units.length; index++) {
    const unit = units.at(index)!;
    const prior = reusable?.units.at(index);
    const count =
      prior === unit ||
      (prior !== undefined &&
        prior.kind === unit.kind &&
        prior.fixedTokens === unit.fixedTokens &&
        (prior.countable === null) === (unit.countable === null) &&
        prior.text === unit.text)
        ? reusable!.tokens.at(index)!
        : unitTokens(unit, counter);
    sum += count;
    tokens.push(count);
    totals.push(sum);
  }
  const counted = { revision, units, tokens: tokens.done(), totals: totals.done() };
  bodyTotals.set(body, { counter, revision, totals: counted.totals });
  if (history) history.last = counted;
  else lastCounted.set(counter, counted);
  return counted.totals;
}

/** Framing tokens per message in OpenAI's rendered prompt (OpenAI cookbook token-counting recipe). */
export const OPENAI_MESSAGE_FRAMING_TOKENS = 3;

/**
 * Tokens of every unit of a body as the body's cache rules bill them: `unitTokens`, plus, under
 * OpenAI rules, the framing tokens at the start of each message (Anthropic's framing is not
 * modelled; local engines count rendered tokens instead). Cache models and the ideal read use
 * this, so reads and the physical limit are measured in the same tokens.
 */
export function unitTokensWithFraming(body: NormalizedWireBody, counter: TokenCounter): number[] {
  const framing = cacheRulesFor(body) === 'openai' ? OPENAI_MESSAGE_FRAMING_TOKENS : 0;
  let lastMessage: number | null = null;
  return body.units.map((unit) => {
    let tokens = unitTokens(unit, counter);
    if (framing > 0 && unit.messageIndex !== null && unit.messageIndex !== lastMessage) {
      tokens += framing;
      lastMessage = unit.messageIndex;
    }
    return tokens;
  });
}
