import type { CacheBreakCause, CacheBreakPayload } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderCacheMissReason, Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { ANTHROPIC_LOOKBACK_POSITIONS } from '../../providers/anthropic/models.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { unitsOf } from '../wire/body-units.js';
import {
  anthropicBreakpoints,
  cacheLifetimeMs,
  cacheRulesFor,
  minimumPrefixTokens,
  unitTokenTotals,
} from '../wire/cache-rules.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { sharedUnitCount } from '../wire/shared-units.js';
import { type NormalizedWireBody, sameUnitIdentity } from '../wire/wire-unit.js';
import { causeSentence, diffNormalized } from './diff-wire-bodies.js';

/** A detected cache break: the `cache.break` payload plus a sentence for people. */
export interface CacheBreak extends CacheBreakPayload {
  explanation: string;
}

export interface BreakDetectorOptions {
  /** Wire format of the observed bodies; detected per body when absent. */
  format?: ProviderId;
  /** Counts tokens for `missedTokens` (an estimate either way); Anthropic's calibrated estimator by default. */
  counter?: TokenCounter;
  /** When given with `sessionId`, every break is also published as `cache.break`. */
  bus?: EventBus;
  sessionId?: string;
  /**
   * Breaks that lose fewer tokens are ignored. OpenAI reads in 128-token steps, so smaller
   * losses are invisible there; the default is 128 for OpenAI rules and 1 otherwise.
   */
  minMissedTokens?: number;
  /**
   * Chat template family of an OpenAI-compatible server. `qwen3` templates drop the reasoning
   * of assistant turns once a newer user query follows, re-rendering history (the default).
   */
  chatTemplate?: 'qwen3' | 'other';
}

export interface ObserveContext {
  /** Request start on the session's clock, ms since the epoch. */
  at: number;
  /** The provider's reported usage for this request, when known: confirms or reveals misses. */
  usage?: Usage;
  turn?: number;
  step?: number;
  /**
   * The upstream that served this request, as its reply names it (OpenRouter's `provider`). A
   * miss right after the upstream changed is reported as `route-changed`.
   */
  route?: string | null;
  /** History was rewritten on purpose since the previous request (compaction): its miss is `compaction`. */
  historyRewritten?: boolean;
}

export interface BreakDetector {
  /** Judge the next request of the session against the previous one; null when nothing was lost. */
  observe(body: unknown, context: ObserveContext): CacheBreak | null;
  /** `observe` for a body already normalized with `normalizeWireBody`. */
  observeNormalized(body: NormalizedWireBody, context: ObserveContext): CacheBreak | null;
  /** Forget the previous request (a new session). */
  reset(): void;
}

/** What `createBreakDetector` returns: a detector that can be copied. */
export interface ForkableBreakDetector extends BreakDetector {
  /** A detector with the same options holding a copy of this one's state, going on independently. */
  fork(): ForkableBreakDetector;
}

/** Reads that fall this far short of what the previous request left cached count as a miss. */
const USAGE_SHORTFALL = 0.1;

/**
 * A live cache-break detector for one session: feed it every wire body in order; it compares
 * each with the previous one and returns (and publishes as `cache.break`) the first
 * divergence and its likely cause, or a structural cause when nothing diverged (TTL expiry,
 * below the minimum, lookback window exceeded, a chat template re-render), or `unknown` when
 * the reported usage shows a miss that none of these explains.
 *
 * @example
 * const detector = createBreakDetector({ bus, sessionId: session.id });
 * const found = detector.observe(body, { at: Date.now(), usage });
 * if (found) console.warn(found.cause, found.path, found.explanation);
 */
export function createBreakDetector(options: BreakDetectorOptions = {}): ForkableBreakDetector {
  return detectorFrom(options, { previous: null, everCleared: false });
}

interface DetectorState {
  previous: { body: NormalizedWireBody; at: number; route: string | null } | null;
  /** A break is the loss of something cached: until a request clears the minimum, reading nothing is none. */
  everCleared: boolean;
}

function detectorFrom(options: BreakDetectorOptions, state: DetectorState): ForkableBreakDetector {
  const counter = options.counter ?? anthropicEstimator();
  let { previous, everCleared } = state;

  // From running totals: the previous body is measured several times per request.
  function tokensOf(body: NormalizedWireBody, from: number, to: number): number {
    if (to <= from) return 0;
    const totals = unitTokenTotals(body, counter);
    return totals.at(to - 1)! - (from > 0 ? totals.at(from - 1)! : 0);
  }

  function judge(body: NormalizedWireBody, context: ObserveContext): Omit<CacheBreak, 'turn' | 'step'> | null {
    const found = judgeStructure(body, context);
    if (!found || !previous) return found;
    const routeChanged = context.route && previous.route && context.route !== previous.route;
    if (routeChanged && (found.cause === 'unknown' || found.cause === 'no-breakpoint')) {
      return {
        ...found,
        cause: 'route-changed',
        explanation: `The reply came from ${context.route}, the previous one from ${previous.route}: ${causeSentence('route-changed')}.`,
      };
    }
    if (context.historyRewritten && found.zone !== 'tools' && found.zone !== 'system' && found.cause !== 'ttl-expired') {
      return { ...found, cause: 'compaction', explanation: `${causeSentence('compaction')}. ${found.explanation}` };
    }
    return found;
  }

  function judgeStructure(body: NormalizedWireBody, context: ObserveContext): Omit<CacheBreak, 'turn' | 'step'> | null {
    if (!previous || !everCleared) return null;
    const before = previous.body;
    const report = diffNormalized(before, body, false, counter);
    const cachedTokens = tokensOf(before, 0, report.horizon);
    const rules = cacheRulesFor(before);
    const threshold = options.minMissedTokens ?? (rules === 'openai' ? 128 : 1);
    const base = { zone: null, path: null, byteOffset: null, before: null, after: null };
    const gap = context.at - previous.at;
    const lifetime = cacheLifetimeMs(before);
    if (gap > lifetime && cachedTokens >= threshold) {
      return {
        ...base,
        cause: 'ttl-expired',
        missedTokens: cachedTokens,
        explanation: `${formatDuration(gap)} passed since the previous request; its cache lives ${formatDuration(lifetime)} unless read.`,
      };
    }
    if (report.firstDivergence && report.unitIndex !== null && report.cause) {
      const missed = cachedTokens - tokensOf(before, 0, report.unitIndex);
      if (missed < threshold) return null;
      return { ...report.firstDivergence, cause: report.cause, missedTokens: missed, explanation: report.explanation };
    }
    const floor = minimumPrefixTokens(before);
    if (cachedTokens > 0 && cachedTokens < floor && everCleared) {
      return {
        ...base,
        cause: 'below-minimum',
        missedTokens: cachedTokens,
        explanation: `The previous request's cacheable prefix is about ${cachedTokens} tokens, below the ${floor}-token minimum for ${before.model}: nothing was written.`,
      };
    }
    if (rules === 'anthropic') {
      const lookback = lookbackMiss(before, body);
      if (lookback) {
        const missed = tokensOf(before, 0, lookback.entryIndex + 1);
        const entry = unitsOf(before).at(lookback.entryIndex)!;
        return {
          ...base,
          cause: 'lookback-exceeded',
          path: entry.path,
          zone: entry.zone,
          missedTokens: missed,
          explanation: `The newest entry (${entry.path}) is ${lookback.distance} blocks before the nearest breakpoint; lookups search ${ANTHROPIC_LOOKBACK_POSITIONS}.`,
        };
      }
    }
    if (rules === 'local' && options.chatTemplate !== 'other') {
      const rerender = reasoningRerender(before, body);
      if (rerender !== null) {
        const unit = unitsOf(rerender.side === 'before' ? before : body).at(rerender.index)!;
        const missed =
          rerender.side === 'before'
            ? cachedTokens - tokensOf(before, 0, rerender.index)
            : tokensOf(body, rerender.index, lastUnitOfMessage(body, unit.messageIndex) + 1);
        if (missed >= threshold) {
          return {
            ...base,
            cause: 'template-rerender',
            zone: unit.zone,
            path: unit.path,
            missedTokens: missed,
            explanation: `The chat template drops the reasoning of ${unit.path.replace(/\..*$/, '')} now that a newer user query follows, so the engine's cached tokens diverge there.`,
          };
        }
      }
    }
    if (context.usage && rules === 'anthropic') {
      // What the two requests share beyond what the previous one left cached.
      const [beforeUnits, afterUnits] = [unitsOf(before), unitsOf(body)];
      let shared = sharedUnitCount(afterUnits, beforeUnits);
      const end = Math.min(beforeUnits.length, afterUnits.length);
      while (shared < end && sameUnitIdentity(beforeUnits.at(shared)!, afterUnits.at(shared)!)) shared++;
      const uncovered = uncoveredByBreakpoint(before, shared);
      const read = context.usage.cacheReadTokens;
      const missed = uncovered ? tokensOf(before, uncovered.from, shared) : 0;
      // What the previous request's breakpoints wrote (nothing when it had none): reading that much
      // means everything lost lay past them, where no breakpoint had written it.
      const lastMark = anthropicBreakpoints(before).at(-1);
      const written = lastMark ? tokensOf(before, 0, lastMark.index + 1) : 0;
      if (uncovered && missed >= threshold && read >= written * (1 - USAGE_SHORTFALL)) {
        return {
          ...base,
          cause: 'no-breakpoint',
          zone: beforeUnits.at(uncovered.from)?.zone ?? null,
          path: beforeUnits.at(uncovered.from)?.path ?? null,
          missedTokens: missed,
          explanation: `The previous request's last breakpoint ends before ${beforeUnits.at(uncovered.from)?.path}; ${missed} shared tokens after it were re-billed although ${uncovered.freeSlots} breakpoint slot(s) were free.`,
        };
      }
    }
    return context.usage ? unexplainedShortfall(cachedTokens, context.usage.cacheReadTokens, threshold) : null;
  }

  const detector: ForkableBreakDetector = {
    observe(rawBody, context) {
      return detector.observeNormalized(normalizeWireBody(rawBody, options.format), context);
    },
    observeNormalized(body, context) {
      const serverCause = context.usage?.cacheMissReason;
      const found = judge(body, context) ?? (previous ? serverOnlyBreak(serverCause) : null);
      previous = { body, at: context.at, route: context.route ?? previous?.route ?? null };
      if (!everCleared) everCleared = tokensOf(body, 0, unitsOf(body).length) >= minimumPrefixTokens(body);
      if (!found) return null;
      const cacheBreak: CacheBreak = {
        turn: context.turn ?? 0,
        step: context.step ?? 0,
        ...found,
        ...(serverCause === undefined ? {} : { serverCause }),
      };
      if (options.bus && options.sessionId) {
        const { explanation: _explanation, ...payload } = cacheBreak;
        options.bus.emit('cache.break', options.sessionId, context.at, payload);
      }
      return cacheBreak;
    },
    reset() {
      previous = null;
      everCleared = false;
    },
    // The previous body is never changed once observed: the copy shares it.
    fork: () => detectorFrom(options, { previous, everCleared }),
  };
  return detector;
}

/** Anthropic accepts at most this many `cache_control` breakpoints a request. */
const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * The shared prefix past the previous request's last breakpoint, when a breakpoint could have
 * covered it: the previous request had a slot free and the region holds a markable block. A
 * region that only the request's own new text or tail could end (nothing markable, or all four
 * slots in use) is not a placement failure.
 */
function uncoveredByBreakpoint(before: NormalizedWireBody, horizon: number): { from: number; freeSlots: number } | null {
  const marks = anthropicBreakpoints(before);
  const units = unitsOf(before);
  let from = (marks.at(-1)?.index ?? -1) + 1;
  while (from < horizon && !units.at(from)!.block) from++;
  if (from >= horizon || marks.length >= ANTHROPIC_MAX_BREAKPOINTS) return null;
  let markable = false;
  for (let index = from; index < horizon; index++) {
    const unit = units.at(index)!;
    if (unit.block && unit.kind !== 'thinking' && unit.tokenText.length > 0) markable = true;
  }
  return markable ? { from, freeSlots: ANTHROPIC_MAX_BREAKPOINTS - marks.length } : null;
}

/**
 * The provider names a miss Cachet's comparison did not find (a change Cachet cannot see, such
 * as a speed switch or a server-side eviction): recorded as `unknown` so the disagreement shows.
 */
function serverOnlyBreak(reason: ProviderCacheMissReason | null | undefined): Omit<CacheBreak, 'turn' | 'step'> | null {
  if (!reason?.missedTokens) return null;
  return {
    zone: null,
    path: null,
    byteOffset: null,
    before: null,
    after: null,
    cause: 'unknown',
    missedTokens: reason.missedTokens,
    explanation: `The provider reports ${reason.type} (${reason.missedTokens} tokens not read); the two bodies show no such change.`,
  };
}

/**
 * Anthropic reads only entries within 20 block positions of a breakpoint. Entries exist at the
 * previous request's breakpoints; if every breakpoint of the next request at or after the
 * newest entry is further than that from it, that entry is not read although nothing diverged.
 */
function lookbackMiss(before: NormalizedWireBody, after: NormalizedWireBody): { entryIndex: number; distance: number } | null {
  // Only the newest entry matters: earlier ones (the system breakpoint, say) are found at once,
  // but reading them alone still loses everything the newest entry covered after them.
  const newest = anthropicBreakpoints(before).at(-1)?.index;
  if (newest === undefined) return null;
  // Block positions from the entry to each later breakpoint, counted forward once (breakpoints
  // come in order), instead of an array of every unit's position.
  let nearest = Number.POSITIVE_INFINITY;
  let counted = newest;
  // Positions start at the first block: with none up to the entry, the first one after it is position 0 too.
  const units = unitsOf(after);
  let firstBlock = 0;
  while (firstBlock < units.length && !units.at(firstBlock)!.block) firstBlock++;
  if (firstBlock === units.length) firstBlock = -1;
  let distance = firstBlock === -1 || firstBlock > newest ? -1 : 0;
  for (const { index: read } of anthropicBreakpoints(after)) {
    if (read < newest) continue;
    for (; counted < read; counted++) if (units.at(counted + 1)?.block) distance++;
    const positions = Math.max(distance, 0);
    if (positions < ANTHROPIC_LOOKBACK_POSITIONS) return null;
    nearest = Math.min(nearest, positions);
  }
  if (!Number.isFinite(nearest)) return null;
  return { entryIndex: newest, distance: nearest };
}

/**
 * Qwen3-style templates render an assistant turn's reasoning only while no newer user query
 * follows it. Returns the unit index (in `before`) of the first reasoning that `after` will
 * render differently, or null.
 */
function reasoningRerender(
  before: NormalizedWireBody,
  after: NormalizedWireBody,
): { side: 'before' | 'after'; index: number } | null {
  const lastQuery = (body: NormalizedWireBody) =>
    body.units.findLastIndex(
      (unit) => unit.role === 'user' && unit.kind === 'text' && !unit.tokenText.startsWith('<tool_response>'),
    );
  const queryBefore = before.units[lastQuery(before)]?.messageIndex ?? -1;
  const queryAfter = after.units[lastQuery(after)]?.messageIndex ?? -1;
  if (queryAfter <= queryBefore) return null;
  const rerendered = (unit: NormalizedWireBody['units'][number]) =>
    unit.kind === 'thinking' && unit.messageIndex !== null && unit.messageIndex > queryBefore && unit.messageIndex < queryAfter;
  // Reasoning the previous request rendered (after its last query) and the next one will not.
  const index = before.units.findIndex(rerendered);
  if (index !== -1) return { side: 'before', index };
  // The reply the previous request generated sits in the engine's slot with its reasoning.
  const replyIndex = after.units.findIndex(rerendered);
  return replyIndex === -1 ? null : { side: 'after', index: replyIndex };
}

function lastUnitOfMessage(body: NormalizedWireBody, messageIndex: number | null): number {
  return body.units.findLastIndex((unit) => unit.messageIndex === messageIndex);
}

function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'forever';
  const minutes = ms / 60_000;
  if (minutes >= 60) return `${(minutes / 60).toFixed(minutes % 60 === 0 ? 0 : 1)} h`;
  if (minutes >= 1) return `${minutes.toFixed(minutes % 1 === 0 ? 0 : 1)} min`;
  return `${Math.round(ms / 1000)} s`;
}

/**
 * A detector bound to a session: breaks are published as `cache.break` on the session's bus
 * under its id (nothing is published when the session has no bus).
 *
 * @example
 * const detector = attachBreakDetector(session, { format: 'anthropic' });
 * detector.observe(body, { at: session.clock(), usage });
 */
export function attachBreakDetector(
  session: { readonly id: string; readonly bus: EventBus | undefined },
  options: Omit<BreakDetectorOptions, 'bus' | 'sessionId'> = {},
): BreakDetector {
  return createBreakDetector({ ...options, sessionId: session.id, ...(session.bus ? { bus: session.bus } : {}) });
}

/** A read well short of what the previous request cached, with no structural cause found: `unknown`. */
function unexplainedShortfall(expected: number, read: number, threshold: number): Omit<CacheBreak, 'turn' | 'step'> | null {
  if (read >= expected * (1 - USAGE_SHORTFALL) || expected - read < threshold) return null;
  const cause: CacheBreakCause = 'unknown';
  return {
    zone: null,
    path: null,
    byteOffset: null,
    before: null,
    after: null,
    cause,
    missedTokens: expected - read,
    explanation: `The provider read ${read} tokens where about ${expected} were cached by the previous request: ${causeSentence(cause)}.`,
  };
}
