import type { BreakpointRecord } from '../../events/catalog.js';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { ValidationError } from '../../model/errors.js';
import type { Zone } from '../../model/request.js';
import { type BreakpointCandidate, fitBreakpointBudget } from '../shared/breakpoint-budget.js';
import { ANTHROPIC_LOOKBACK_POSITIONS, ANTHROPIC_MAX_BREAKPOINTS, type AnthropicTtl } from './models.js';
import type { AnthropicCacheEntry, AnthropicCacheState, BreakpointMode, CallerMarker } from './options.js';
import {
  type BreakpointSlot,
  findFromEnd,
  firstTailOf,
  lastCacheableAtOrBefore,
  lastIndexWhile,
  lastSystemSlot,
  runningTokens,
  type SlotSequence,
  slotAt,
} from './slot-sequence.js';

export type { AnthropicCacheEntry, AnthropicCacheState, BreakpointMode, CallerMarker } from './options.js';
export type { BreakpointSlot, SlotSequence } from './slot-sequence.js';

export interface ZoneTtls {
  global: AnthropicTtl;
  session: AnthropicTtl;
  history: AnthropicTtl;
}

export type BreakpointReason = 'caller' | 'history' | 'lookback-guard' | 'global-static' | 'session-static' | 'automatic';

export interface PlannedBreakpoint extends BreakpointRecord {
  ttl: AnthropicTtl;
  reason: BreakpointReason;
  /** Wire position (see BreakpointSlot); for `automatic`, the last cacheable block. */
  position: number;
  /** Estimated tokens from the start of the request through this breakpoint. */
  estimatedPrefixTokens: number;
  /** True when the estimate is below the model's floor: the API would write no entry here. */
  belowFloor: boolean;
}

export interface BreakpointPlanInput {
  slots: SlotSequence;
  /**
   * Tokens from the first slot through `position` (0 outside the slots), when the caller keeps
   * them: equal to summing `tokens` in position order. Without it the plan sums every slot.
   */
  tokensThrough?: (position: number) => number;
  /** Position of the first turn-tail slot (-1 for none), when the caller knows it; else the plan looks. */
  firstTailPosition?: number;
  mode: BreakpointMode;
  ttl: ZoneTtls;
  floorTokens: number;
  /** Tokens the session static zone must add over the global one to earn its own breakpoint. */
  sessionMinTokens: number;
  /**
   * The previous request's entries (exact), `null` for "no previous request", `undefined` to
   * infer them: the previous request is taken to have ended before the last assistant message.
   */
  previous: AnthropicCacheState | null | undefined;
  /** Index of the last assistant message, for inference when `previous` is undefined. */
  lastAssistantMessageIndex: number | null;
  markers: readonly CallerMarker[];
  /** No request is expected after this one: the history breakpoint stays at the previous entry (`AnthropicOptions.finalRequest`). */
  finalRequest?: boolean;
  /**
   * Markers the request may carry [ANTHROPIC_MAX_BREAKPOINTS]; a gateway that forwards markers
   * to Anthropic (OpenRouter) may allow fewer.
   */
  maxBreakpoints?: number;
}

export interface BreakpointPlan {
  breakpoints: PlannedBreakpoint[];
  /** Top-level automatic caching, when `mode` is `automatic`. */
  automatic: { ttl: AnthropicTtl } | null;
  warnings: AdapterWarning[];
  cacheState: AnthropicCacheState;
}

interface Candidate extends BreakpointCandidate {
  slot: BreakpointSlot;
  reason: BreakpointReason;
  ttl?: AnthropicTtl;
}

/**
 * Choose at most four breakpoints for a request, in priority order: caller markers, the end of
 * persisted history (before the turn tail), a lookback guard when the previous request's entry
 * lies 20 or more positions before every other breakpoint, the end of the global static zone,
 * and the end of the session static zone when it is worth an entry of its own. Never on a
 * thinking block, redacted thinking or empty text; never on or after the turn tail. TTLs come
 * from the zone and are raised where needed so that 1h breakpoints precede 5m ones.
 *
 * @example
 * const plan = planBreakpoints({ slots, mode: 'plan', ttl: { global: '1h', session: '5m', history: '5m' },
 *   floorTokens: 1024, sessionMinTokens: 1024, previous: undefined, lastAssistantMessageIndex: 3, markers: [] });
 */
export function planBreakpoints(input: BreakpointPlanInput): BreakpointPlan {
  const { slots } = input;
  const warnings: AdapterWarning[] = [];
  const cumulative = input.tokensThrough ?? runningTokens(slots);

  const candidates: Candidate[] = markerCandidates(input, warnings);
  const firstTail = input.firstTailPosition ?? firstTailOf(slots);
  const persistedEnd = (firstTail === -1 ? slots.length : firstTail) - 1;

  if (input.mode === 'plan') candidates.push(...zoneCandidates(input, cumulative, persistedEnd));

  const maximum = Math.min(input.maxBreakpoints ?? ANTHROPIC_MAX_BREAKPOINTS, ANTHROPIC_MAX_BREAKPOINTS);
  const limit = maximum - (input.mode === 'automatic' ? 1 : 0);
  const fitted = fitBreakpointBudget(candidates, limit);
  warnings.push(...fitted.warnings);

  const ordered = fitted.kept
    .map((kept) => ({ kept, ttl: kept.ttl ?? zoneTtl(input.ttl, kept.reason, kept.slot.zone) }))
    .sort((left, right) => left.kept.slot.position - right.kept.slot.position);
  const automaticSlot = input.mode === 'automatic' ? lastCacheableAtOrBefore(slots, slots.length - 1) : -1;
  const ttls = ordered.map((entry) => entry.ttl);
  if (input.mode === 'automatic') ttls.push(input.ttl.history);
  enforceTtlOrder(
    ttls,
    ordered.map((entry) => entry.kept.path).concat(input.mode === 'automatic' ? ['cache_control'] : []),
    warnings,
  );

  const breakpoints: PlannedBreakpoint[] = ordered.map((entry, index) => {
    const position = entry.kept.slot.position;
    const tokens = cumulative(position);
    return {
      path: entry.kept.slot.path,
      zone: entry.kept.slot.zone,
      ttl: ttls[index] ?? '5m',
      reason: entry.kept.reason,
      position,
      estimatedPrefixTokens: tokens,
      belowFloor: tokens < input.floorTokens,
    };
  });
  let automatic: { ttl: AnthropicTtl } | null = null;
  if (input.mode === 'automatic') {
    const ttl = ttls.at(-1) ?? input.ttl.history;
    automatic = { ttl };
    const slot = slotAt(slots, automaticSlot);
    if (slot) {
      const tokens = cumulative(automaticSlot);
      breakpoints.push({
        path: 'cache_control',
        zone: slot.zone,
        ttl,
        reason: 'automatic',
        position: automaticSlot,
        estimatedPrefixTokens: tokens,
        belowFloor: tokens < input.floorTokens,
      });
      if (slot.zone === 'tail') {
        warnings.push(
          adapterWarning(
            'tail-breakpoint',
            'automatic caching: the breakpoint lands on the turn tail, so the next request cannot read the entry it writes',
          ),
        );
      }
    }
  }

  const entries: AnthropicCacheEntry[] = [];
  for (const breakpoint of breakpoints) {
    const slot = slotAt(slots, breakpoint.position);
    if (breakpoint.reason !== 'automatic' && slot?.messageIndex !== null && slot?.prefixHash) {
      entries.push({ path: slot.path, prefixHash: slot.prefixHash });
    }
  }
  return { breakpoints, automatic, warnings, cacheState: { entries } };
}

function markerCandidates(input: BreakpointPlanInput, warnings: AdapterWarning[]): Candidate[] {
  if (input.markers.length === 0) return [];
  const byPath = new Map<string, BreakpointSlot>();
  for (let index = 0; index < input.slots.length; index++) {
    const slot = input.slots.at(index) as BreakpointSlot;
    byPath.set(slot.path, slot);
  }
  const result: Candidate[] = [];
  input.markers.forEach((marker, index) => {
    const slot = byPath.get(marker.path);
    if (!slot) {
      throw new ValidationError(
        `options.markers[${index}].path`,
        'the path of a tool, system, padding or message block',
        `got ${marker.path}`,
      );
    }
    if (!slot.cacheable) {
      warnings.push(
        adapterWarning(
          'caller-breakpoint-ignored',
          `${marker.path}: caller breakpoint ignored, thinking and empty blocks cannot carry cache_control`,
          marker.path,
        ),
      );
      return;
    }
    if (slot.zone === 'tail') {
      warnings.push(
        adapterWarning(
          'caller-breakpoint-ignored',
          `${marker.path}: caller breakpoint ignored, an entry ending in the turn tail is never read`,
          marker.path,
        ),
      );
      return;
    }
    result.push({ path: slot.path, source: 'caller', slot, reason: 'caller', ttl: marker.ttl });
  });
  return result;
}

function candidate(slots: SlotSequence, position: number, reason: BreakpointReason): Candidate {
  const slot = slotAt(slots, position) as BreakpointSlot;
  return { path: slot.path, source: reason, slot, reason };
}

/**
 * Where the previous request's newest entry is, when no breakpoint of this request can reach it
 * within the lookback window; -1 when no guard is needed.
 */
function guardPosition(input: BreakpointPlanInput, history: number, planned: readonly number[]): number {
  const previous = previousEntryPositions(input).filter((position) => position < history);
  if (previous.length === 0) return -1;
  const newest = Math.max(...previous);
  const reachable = planned.some((position) => position >= newest && position - newest < ANTHROPIC_LOOKBACK_POSITIONS);
  return reachable ? -1 : newest;
}

function previousEntryPositions(input: BreakpointPlanInput): number[] {
  if (input.previous === null) return [];
  if (input.previous !== undefined) {
    return input.previous.entries.flatMap((entry) => {
      const slot = findFromEnd(input.slots, entry.path);
      // A different prefix hash means history was rewritten: that entry can no longer be read.
      return slot && slot.prefixHash === entry.prefixHash && slot.cacheable ? [slot.position] : [];
    });
  }
  const lastAssistant = input.lastAssistantMessageIndex;
  if (lastAssistant === null) return [];
  // The last slot that qualifies, found from the end: the walk stops before the history.
  for (let index = input.slots.length - 1; index >= 0; index--) {
    const slot = input.slots.at(index) as BreakpointSlot;
    if (slot.messageIndex !== null && slot.messageIndex < lastAssistant && slot.cacheable && slot.zone !== 'tail') {
      return slot.position >= 0 ? [slot.position] : [];
    }
  }
  return [];
}

function zoneTtl(ttl: ZoneTtls, reason: BreakpointReason, zone: Zone): AnthropicTtl {
  switch (reason) {
    case 'global-static':
      return ttl.global;
    case 'session-static':
      return ttl.session;
    case 'history':
    case 'lookback-guard':
    case 'automatic':
      return ttl.history;
    case 'caller':
      return zone === 'global' ? ttl.global : zone === 'session' ? ttl.session : ttl.history;
  }
}

/** 1h entries must come before 5m ones: raise every breakpoint before the last 1h one to 1h. */
function enforceTtlOrder(ttls: AnthropicTtl[], paths: readonly string[], warnings: AdapterWarning[]): void {
  const lastLong = ttls.lastIndexOf('1h');
  for (let index = 0; index < lastLong; index++) {
    if (ttls[index] === '5m') {
      ttls[index] = '1h';
      warnings.push(
        adapterWarning(
          'ttl-raised',
          `${paths[index]}: ttl raised to 1h because a later breakpoint uses 1h (1h entries must precede 5m ones)`,
          paths[index],
        ),
      );
    }
  }
}

/**
 * The `cache_control` value for a breakpoint. 5m is the API default: leaving `ttl` out keeps
 * bodies identical to the common shape.
 *
 * @example
 * cacheControlMarker('1h') // { type: 'ephemeral', ttl: '1h' }
 */
export function cacheControlMarker(ttl: AnthropicTtl): { type: 'ephemeral'; ttl?: '1h' } {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * Where the history breakpoint goes: the last persisted block; on a final request, the newest
 * previous entry still in the history instead (its prefix is read, nothing new is written).
 */
function historyEnd(input: BreakpointPlanInput, persistedLast: number): number {
  if (persistedLast < 0 || slotAt(input.slots, persistedLast)?.zone !== 'history') return -1;
  if (!input.finalRequest) return persistedLast;
  const previous = previousEntryPositions(input).filter(
    (position) => position <= persistedLast && slotAt(input.slots, position)?.zone === 'history',
  );
  return previous.length > 0 ? Math.max(...previous) : persistedLast;
}

/**
 * The plan mode's own candidates, most valuable first: the history end (or the session static end
 * when it earns one), a lookback guard, and the global (or a static boundary that clears the floor).
 */
function zoneCandidates(input: BreakpointPlanInput, cumulative: (position: number) => number, persistedEnd: number): Candidate[] {
  const { slots } = input;
  const candidates: Candidate[] = [];
  const globalEnd = lastCacheableAtOrBefore(
    slots,
    lastIndexWhile(slots, persistedEnd, (slot) => slot.zone === 'global'),
  );
  const staticEnd = lastCacheableAtOrBefore(
    slots,
    lastIndexWhile(slots, persistedEnd, (slot) => slot.zone === 'global' || slot.zone === 'session'),
  );
  const persistedLast = lastCacheableAtOrBefore(slots, persistedEnd);
  const history = historyEnd(input, persistedLast);
  const staticTokens = staticEnd >= 0 ? cumulative(staticEnd) : 0;
  const sessionOwnTokens = staticTokens - (globalEnd >= 0 ? cumulative(globalEnd) : 0);
  // Without history before the tail, the session static end is where everything persisted
  // ends: it gets the breakpoint the history end would have had. Otherwise it has to earn it.
  const worthwhile = history < 0 || sessionOwnTokens >= input.sessionMinTokens;
  const session = staticEnd > globalEnd && worthwhile && (history < 0 || staticTokens >= input.floorTokens) ? staticEnd : -1;

  // A global entry below the provider's minimum is never written. When the static zones as a
  // whole clear it (tools discovered this session sit between the global tools and the system
  // text, or the session text is long), the earliest static boundary that clears it takes the
  // global breakpoint: the end of the system text first, because images, tool_choice and
  // thinking changes invalidate only the messages level, then the end of the static zones.
  const belowFloor = globalEnd >= 0 && cumulative(globalEnd) < input.floorTokens;
  const staticMark =
    belowFloor && session < 0 && staticEnd > globalEnd
      ? ([lastCacheableAtOrBefore(slots, lastSystemSlot(slots, staticEnd)), staticEnd].find(
          (index) => index > globalEnd && cumulative(index) >= input.floorTokens,
        ) ?? -1)
      : -1;

  if (history >= 0) candidates.push(candidate(slots, history, 'history'));
  else if (session >= 0) candidates.push(candidate(slots, session, 'session-static'));
  const globalMark = staticMark >= 0 ? staticMark : globalEnd;
  const guard = history >= 0 ? guardPosition(input, history, [history, globalMark, session]) : -1;
  if (guard >= 0) candidates.push(candidate(slots, guard, 'lookback-guard'));
  if (staticMark >= 0) candidates.push(candidate(slots, staticMark, 'session-static'));
  else if (globalEnd >= 0) candidates.push(candidate(slots, globalEnd, 'global-static'));
  if (session >= 0 && history >= 0) candidates.push(candidate(slots, session, 'session-static'));
  return candidates;
}
