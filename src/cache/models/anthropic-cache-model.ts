import type { CacheBreakCause } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import {
  ANTHROPIC_LOOKBACK_POSITIONS,
  ANTHROPIC_MAX_BREAKPOINTS,
  type AnthropicModelRow,
  resolveAnthropicModel,
} from '../../providers/anthropic/models.js';
import { providerEntry } from '../../providers/registry.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { createBreakDetector, type ForkableBreakDetector } from '../break/break-detector.js';
import { BlockCoreMemo } from '../wire/block-core-memo.js';
import { unitsOf } from '../wire/body-units.js';
import {
  anthropicBreakpoints,
  type BreakpointScanHistory,
  CACHE_LIFETIMES_MS,
  cacheRulesFor,
  type UnitTokenHistory,
  unitTokenTotals,
  upstreamModelOf,
} from '../wire/cache-rules.js';
import type { IndexedList } from '../wire/chunked-list.js';
import { modelOf } from '../wire/json-helpers.js';
import { detectWireFormat, normalizeWireBody } from '../wire/normalize-wire-body.js';
import type { WireUnit } from '../wire/wire-unit.js';
import { judgedVerdict } from './anthropic-verdict.js';
import {
  buildVerdict,
  type CacheModel,
  type CacheModelForkOptions,
  type CacheVerdict,
  formatAge,
  formatTokens,
  type JudgeContext,
} from './cache-verdict.js';
import { createPrefixHasher } from './unit-prefix.js';

export interface AnthropicCacheModelOptions {
  /** Token counter; Anthropic's tokenizer is not public, so the default is the calibrated estimator. */
  counter?: TokenCounter;
  /** Rows that override the adapter's model table (floors), longest prefix wins. */
  modelOverrides?: readonly AnthropicModelRow[];
  /** Use this minimum prefix instead of the table's effective floor (for experiments). */
  minimumPrefixTokens?: number;
  /**
   * Keep the last body's blocks to reuse the JSON and counts of equal blocks in the next body
   * (`BlockCoreMemo`) [false]. Saves most of the CPU of judging a conversation's growing bodies
   * one after another (`cachet analyze`), at the cost of holding the last body's parsed blocks.
   */
  reuseEqualBlocks?: boolean;
  /**
   * The memo to keep the last body's blocks in (implies `reuseEqualBlocks`): one made with
   * another model's memo as its reference reuses that model's work on copies of the same blocks
   * (`cachet analyze` judges each request and its planned copy on two models).
   */
  blockMemo?: BlockCoreMemo;
}

interface Entry {
  ttl: '5m' | '1h';
  writtenAt: number;
  expiresAt: number;
  /** Request that wrote it: entries become readable only by later requests. */
  request: number;
  path: string;
  tokens: number;
}

function ttlMs(ttl: '5m' | '1h'): number {
  return ttl === '1h' ? CACHE_LIFETIMES_MS.anthropic1h : CACHE_LIFETIMES_MS.anthropic5m;
}

/**
 * Anthropic's prompt cache as documented (CACHE-FACTS.md, platform.claude.com prompt-caching):
 * prefix order tools → system → messages with the model first and the message-level
 * parameters (the model row's cacheKeyParams — effort only before Claude 5 — and images) before the messages, so a change
 * invalidates its level and everything after; entries only at breakpoints of earlier
 * requests; reads searched at most 20 block positions back from each breakpoint; per-model
 * minimum prefix; 5-minute / 1-hour TTLs from the request start, refreshed by reads; at most
 * four breakpoints, 1-hour ones before 5-minute ones.
 *
 * @example
 * const model = createAnthropicCacheModel();
 * const first = model.judge(body1, { at: 0 });        // writes
 * const second = model.judge(body2, { at: 60_000 });  // reads what body1 wrote
 * second.cacheReadTokens; second.explanation;
 */
export function createAnthropicCacheModel(options: AnthropicCacheModelOptions = {}): CacheModel {
  return anthropicCacheModelFrom(options, null);
}

/** A fork's options: the original's, with the fork's own memo of blocks (never the original's). */
export function forkedAnthropicOptions(
  options: AnthropicCacheModelOptions,
  forkOptions: CacheModelForkOptions,
): AnthropicCacheModelOptions {
  const { blockMemo: shared, ...own } = options;
  const reuseEqualBlocks = own.reuseEqualBlocks === true || shared !== undefined;
  return { ...own, reuseEqualBlocks, ...(forkOptions.blockMemo ? { blockMemo: forkOptions.blockMemo } : {}) };
}

/** What a fork copies: the entries (refreshed in place, so each is copied), the detector's previous body, the count. */
interface CopiedState {
  entries: Map<string, Entry>;
  detector: ForkableBreakDetector;
  index: number;
}

function anthropicCacheModelFrom(options: AnthropicCacheModelOptions, copied: CopiedState | null): CacheModel {
  const counter = options.counter ?? anthropicEstimator();
  let entries = copied?.entries ?? new Map<string, Entry>();
  let detector = copied?.detector ?? createBreakDetector({ counter });
  // Hashes, token counts and block cores are memos: a fork starts them afresh, with the same values.
  const hasher = createPrefixHasher();
  // Successive bodies of a conversation repeat its history: equal blocks keep their JSON and counts.
  const newMemo = () => {
    options.blockMemo?.forget();
    return options.blockMemo ?? (options.reuseEqualBlocks ? new BlockCoreMemo() : undefined);
  };
  let memo = newMemo();
  let tokenHistory: UnitTokenHistory = {};
  // This conversation's last scanned body: another conversation's bodies in between (a capture) do not make it rescan its history.
  let breakpointHistory: BreakpointScanHistory = {};
  let index = copied?.index ?? 0;

  function judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
    // A body whose provider routes its model to Anthropic's rules (OpenRouter's anthropic/*) keeps
    // its format; any other is read as Anthropic's own — a plain Anthropic body (string contents,
    // no system, unfamiliar model id) can look like Chat Completions.
    const detected = detectWireFormat(rawBody);
    const routedToAnthropic = providerEntry(detected).route(modelOf(rawBody)).rules === 'anthropic';
    const format = routedToAnthropic ? detected : 'anthropic';
    const given = context.normalized;
    const body = given !== undefined && given.format === format ? given : normalizeWireBody(rawBody, format, memo);
    context.onNormalized?.(body, format);
    if (cacheRulesFor(body) !== 'anthropic') {
      throw new ValidationError(
        'body',
        'an Anthropic Messages body (or an OpenRouter anthropic/* body)',
        `got a ${body.format} body`,
      );
    }
    const at = context.at;
    const requestIndex = index++;
    const cumulative = unitTokenTotals(body, counter, tokenHistory);
    const hashes = hasher.hashes(body);
    const inputTokens = cumulative.at(-1) ?? 0;
    const units = unitsOf(body);
    const row = resolveAnthropicModel(upstreamModelOf(body), options.modelOverrides);
    const floor = options.minimumPrefixTokens ?? row.effectiveFloorTokens;
    const breakpoints = anthropicBreakpoints(body, breakpointHistory);
    const warnings = [...body.warnings];
    const explanation: string[] = [];
    const base = {
      index: requestIndex,
      at,
      inputTokens,
      tokensEstimated: !counter.exact,
      counter: counter.name,
      warnings,
    };
    const rejection = rejectionOf(breakpoints);
    if (rejection) {
      detector.observeNormalized(body, { at });
      return buildVerdict({
        ...base,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        readFrom: null,
        missCause: null,
        explanation: [rejection],
        rejected: rejection,
      });
    }
    const live = (entry: Entry | undefined): boolean =>
      entry !== undefined && entry.request < requestIndex && at < entry.expiresAt;
    const scan = { units, breakpoints, hashes, cumulative, entries, live, at, requestIndex, explanation };
    const { readEnd, cacheReadTokens, lookbackMissed, expiredInWindow } = findReads(scan);
    const { cacheWrite5mTokens, cacheWrite1hTokens } = writeEntries(scan, { readEnd, floor, family: row.family });
    if (breakpoints.length === 0) explanation.push('No cache_control breakpoint: nothing is read or written.');
    if (!counter.exact) explanation.push(`Token counts are estimates (${counter.name}); Anthropic's tokenizer is not public.`);

    const structural = detector.observeNormalized(body, {
      at,
      usage: {
        uncachedInputTokens: 0,
        cacheReadTokens,
        cacheWrite5mTokens,
        cacheWrite1hTokens,
        outputTokens: 0,
        reasoningTokens: 0,
        raw: null,
      },
    });
    let missCause: CacheBreakCause | null = structural?.cause ?? null;
    if (lookbackMissed) missCause = 'lookback-exceeded';
    else if (expiredInWindow && readEnd < 0) missCause = 'ttl-expired';
    if (structural && !explanation.some((line) => line.includes(structural.explanation)))
      explanation.push(structural.explanation);
    const readFrom =
      readEnd >= 0 ? { path: units.at(readEnd)!.path, writtenAt: entries.get(hashes.at(readEnd)!)!.writtenAt } : null;
    const missedTokens = missCause && structural?.cause === missCause ? structural.missedTokens : undefined;
    return judgedVerdict(base, {
      cacheReadTokens,
      cacheWrite5mTokens,
      cacheWrite1hTokens,
      readFrom,
      missCause,
      missedTokens,
      explanation,
    });
  }

  return {
    rules: 'anthropic',
    judge,
    reset() {
      entries = new Map();
      detector = createBreakDetector({ counter });
      hasher.reset();
      memo = newMemo();
      tokenHistory = {};
      breakpointHistory = {};
      index = 0;
    },
    fork(forkOptions = {}) {
      return anthropicCacheModelFrom(forkedAnthropicOptions(options, forkOptions), {
        entries: new Map([...entries].map(([hash, entry]) => [hash, { ...entry }])),
        detector: detector.fork(),
        index,
      });
    },
  };
}

/** The API answers 400 to more than four breakpoints or a 1-hour breakpoint after a 5-minute one. */
function rejectionOf(breakpoints: ReadonlyArray<{ ttl: string }>): string | null {
  if (breakpoints.length > ANTHROPIC_MAX_BREAKPOINTS) {
    return `Rejected (400): ${breakpoints.length} cache_control breakpoints, at most ${ANTHROPIC_MAX_BREAKPOINTS} are allowed.`;
  }
  // One pass, no closures: every judged request asks.
  let shortSeen = false;
  for (const mark of breakpoints) {
    if (mark.ttl !== '1h') shortSeen = true;
    else if (shortSeen) return 'Rejected (400): a 1-hour breakpoint follows a 5-minute one; longer TTLs must come first.';
  }
  return null;
}

/** What the read and write passes over one request's breakpoints share. */
interface Scan {
  units: IndexedList<WireUnit>;
  breakpoints: ReturnType<typeof anthropicBreakpoints>;
  hashes: IndexedList<string>;
  cumulative: IndexedList<number>;
  entries: Map<string, Entry>;
  live: (entry: Entry | undefined) => boolean;
  at: number;
  requestIndex: number;
  explanation: string[];
}

/** Reads: walk back from every breakpoint through at most 20 block positions. */
function findReads(scan: Scan): {
  readEnd: number;
  cacheReadTokens: number;
  lookbackMissed: { entry: Entry; distance: number } | null;
  expiredInWindow: Entry | null;
} {
  const { units, breakpoints, hashes, cumulative, entries, live, at, explanation, requestIndex } = scan;
  let readEnd = -1;
  let lookbackMissed: { entry: Entry; distance: number } | null = null;
  let expiredInWindow: Entry | null = null;
  for (const mark of breakpoints) {
    let hit = -1;
    // Block positions between this unit and the breakpoint, counted on the way back (no array of
    // every unit's position per request).
    let distance = 0;
    for (let unitIndex = mark.index; unitIndex >= 0; unitIndex--) {
      if (unitIndex < mark.index && units.at(unitIndex + 1)!.block) distance++;
      if (!units.at(unitIndex)!.block) continue;
      const entry = entries.get(hashes.at(unitIndex)!);
      if (distance >= ANTHROPIC_LOOKBACK_POSITIONS) {
        if (entry && live(entry) && !lookbackMissed) lookbackMissed = { entry, distance };
        continue;
      }
      if (entry && live(entry)) {
        hit = unitIndex;
        entry.expiresAt = at + ttlMs(entry.ttl);
        break;
      }
      if (entry && entry.request < requestIndex && !expiredInWindow) expiredInWindow = entry;
    }
    readEnd = Math.max(readEnd, hit);
  }
  const cacheReadTokens = readEnd >= 0 ? cumulative.at(readEnd)! : 0;
  if (readEnd >= 0) {
    const entry = entries.get(hashes.at(readEnd)!)!;
    explanation.push(
      `Read ${formatTokens(cacheReadTokens)} tokens from the entry ending at ${entry.path}, written ${formatAge(at - entry.writtenAt)} ago by request #${entry.request + 1} (${entry.ttl} TTL, refreshed).`,
    );
  }
  if (lookbackMissed && lookbackMissed.entry.tokens > cacheReadTokens) {
    explanation.push(
      `An entry ending at ${lookbackMissed.entry.path} is ${lookbackMissed.distance} blocks before the nearest breakpoint: lookups search only ${ANTHROPIC_LOOKBACK_POSITIONS} positions, so it was not read.`,
    );
  } else {
    lookbackMissed = null;
  }
  if (expiredInWindow && readEnd < 0) {
    explanation.push(
      `The entry ending at ${expiredInWindow.path} expired ${formatAge(at - expiredInWindow.expiresAt)} ago (${expiredInWindow.ttl} TTL).`,
    );
  }
  return { readEnd, cacheReadTokens, lookbackMissed, expiredInWindow };
}

/** Writes: every breakpoint past the read whose prefix clears the minimum gets an entry. */
function writeEntries(
  scan: Scan,
  context: { readEnd: number; floor: number; family: string },
): { cacheWrite5mTokens: number; cacheWrite1hTokens: number } {
  const { units, breakpoints, hashes, cumulative, entries, live, at, explanation } = scan;
  const { readEnd, floor } = context;
  let cacheWrite5mTokens = 0;
  let cacheWrite1hTokens = 0;
  let writtenUpTo = readEnd;
  for (const mark of breakpoints) {
    if (mark.index <= readEnd) continue;
    const unit = units.at(mark.index)!;
    if (cumulative.at(mark.index)! < floor) {
      explanation.push(
        `The prefix up to ${unit.path} is ${formatTokens(cumulative.at(mark.index)!)} tokens, below the ${formatTokens(floor)}-token minimum for ${context.family}: not cached.`,
      );
      continue;
    }
    const ttl = mark.ttl === '1h' ? '1h' : '5m';
    const segment = cumulative.at(mark.index)! - (writtenUpTo >= 0 ? cumulative.at(writtenUpTo)! : 0);
    if (ttl === '1h') cacheWrite1hTokens += segment;
    else cacheWrite5mTokens += segment;
    writtenUpTo = mark.index;
    const existing = entries.get(hashes.at(mark.index)!);
    if (!live(existing)) {
      entries.set(hashes.at(mark.index)!, {
        ttl,
        writtenAt: at,
        expiresAt: at + ttlMs(ttl),
        request: scan.requestIndex,
        path: unit.path,
        tokens: cumulative.at(mark.index)!,
      });
    }
  }
  if (cacheWrite5mTokens + cacheWrite1hTokens > 0) {
    explanation.push(
      `Wrote ${formatTokens(cacheWrite5mTokens + cacheWrite1hTokens)} tokens up to ${units.at(writtenUpTo)!.path}${cacheWrite1hTokens ? ` (${formatTokens(cacheWrite1hTokens)} with a 1-hour TTL)` : ''}.`,
    );
  }
  return { cacheWrite5mTokens, cacheWrite1hTokens };
}
