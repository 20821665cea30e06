import type { BreakpointRecord } from '../../events/catalog.js';
import type { Anchor } from './chat-messages.js';

/** The markable end of each zone, as found while building the messages. */
export interface ZoneAnchors<Part> {
  global?: Anchor<Part>;
  session?: Anchor<Part>;
  history?: Anchor<Part>;
}

const REASONS = {
  global: 'end of the global static zone (shared by every session of the deployment)',
  session: 'end of the session static zone',
  history: 'last persisted history block before the turn tail',
} as const;

/**
 * The breakpoints worth writing, in prefix order: the end of the global static zone, of the
 * session static zone and of the persisted history. The tail never gets one: it changes every
 * request, so writing it would be paid for and never read. When `limit` is smaller than the
 * candidates, the latest ones are kept (they cover the most tokens).
 *
 * @example
 * const chosen = chooseBreakpoints({ global, history }, 3, '30m'); // [global, history]
 */
export function chooseBreakpoints<Part>(
  anchors: ZoneAnchors<Part>,
  limit: number,
  ttl: BreakpointRecord['ttl'],
): Array<{ anchor: Anchor<Part>; record: BreakpointRecord }> {
  const chosen: Array<{ anchor: Anchor<Part>; record: BreakpointRecord }> = [];
  for (const zone of ['global', 'session', 'history'] as const) {
    const anchor = anchors[zone];
    if (!anchor || chosen.some((entry) => entry.anchor.part === anchor.part)) continue;
    chosen.push({ anchor, record: { path: anchor.path, zone: anchor.zone, ttl, reason: REASONS[zone] } });
  }
  return chosen.slice(Math.max(0, chosen.length - limit));
}

/** How many explicit breakpoints one request may write on OpenAI (GPT-5.6+). */
export const OPENAI_BREAKPOINT_WRITES = { implicit: 3, explicit: 4 } as const;

/**
 * Mark OpenAI `prompt_cache_breakpoint`s on the chosen parts. In `implicit` mode OpenAI adds
 * its own breakpoint and writes the latest three explicit ones; in `explicit` mode it writes
 * up to four and none of its own, so the volatile tail is never written.
 */
export function markOpenAIBreakpoints<Part extends { prompt_cache_breakpoint?: { mode: 'explicit' } | null }>(
  anchors: ZoneAnchors<Part>,
  mode: 'implicit' | 'explicit',
): BreakpointRecord[] {
  // OpenAI keeps explicitly written entries for 30 minutes (CACHE_LIFETIMES_MS.openAiExplicit).
  const chosen = chooseBreakpoints(anchors, OPENAI_BREAKPOINT_WRITES[mode], '30m');
  for (const { anchor } of chosen) anchor.part.prompt_cache_breakpoint = { mode: 'explicit' };
  return chosen.map((entry) => entry.record);
}
