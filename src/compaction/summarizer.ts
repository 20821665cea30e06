import type { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import type { Session } from '../session/session.js';
import type { MaybePromise } from './maybe-promise.js';
import type { StructuredSummary } from './structured-summary.js';

/** What a summariser is given: the span of history it replaces and what came before. */
export interface SummaryInput {
  sessionId: string;
  /** The messages being replaced (may start with the previous `[CONTEXT]` summary message). */
  span: readonly Message[];
  /** The summary the previous compaction wrote, to merge with. */
  previous: StructuredSummary | null;
  /** Restore id of each tool result of the span (by tool_use id): its full output stays reachable. */
  restoreIds: ReadonlyMap<string, string>;
  /** Session notes, verbatim (the pipeline also writes them into the field itself). */
  notes: readonly string[];
  /**
   * The session being compacted, before the rewrite, so a summariser can fork it and read its
   * cache (`forkRequest`): `keptMessages` of its history stay verbatim after the summary, and
   * `lastRequestAt` (ms, null before the first) tells whether its cache entry is still alive;
   * `sentHistoryLength` [all] is how many messages of its history that request carried (later
   * ones are in no cache entry yet).
   */
  parent?: { session: Session; keptMessages: number; lastRequestAt: number | null; sentHistoryLength?: number };
  /** Where warnings go (auxiliary model fallbacks). */
  bus?: EventBus;
  now: number;
}

/**
 * Turns a span of history into the eleven-field summary. Must not throw for content reasons.
 * May answer synchronously (the extractive summariser does, so simulations can run synchronously).
 */
export interface Summarizer {
  readonly name: string;
  summarize(input: SummaryInput): MaybePromise<StructuredSummary>;
}
