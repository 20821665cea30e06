import type { SessionExpectations } from '../session/session.js';
import type { TraceStore } from '../trace/trace-store.js';

/** What earlier sessions of a deployment looked like: the priors of the TTL and tail-scope choices. */
export interface SessionRhythm extends Required<SessionExpectations> {
  /** Gaps between consecutive requests of those sessions, in ms (`TtlPolicyInput.priorGapsMs`). */
  gapsMs: number[];
  /** How many sessions the figures come from (0: no history; the figures are then neutral). */
  sessions: number;
}

/**
 * Read the rhythm of the latest `limit` sessions [50] from a trace store: the gaps between their
 * requests (so the TTL policy knows whether users pause before this session's first pause), and
 * their average requests per turn and per session (so `auto` tail scopes know the turn shape).
 * Pass the result to `chooseHistoryTtl({ priorGapsMs: rhythm.gapsMs, ... })` and to
 * `new Session({ expectations: rhythm, ... })`.
 *
 * @example
 * const rhythm = await sessionRhythmFromTrace(store);
 * const session = new Session({ ...options, expectations: rhythm });
 */
export async function sessionRhythmFromTrace(store: TraceStore, options: { limit?: number } = {}): Promise<SessionRhythm> {
  const sessions = await store.sessions({ limit: options.limit ?? 50 });
  const gapsMs: number[] = [];
  let requests = 0;
  let turns = 0;
  let counted = 0;
  for (const summary of sessions) {
    const rows = await store.requests(summary.sessionId);
    if (rows.length === 0) continue;
    counted += 1;
    requests += rows.length;
    turns += new Set(rows.map((row) => row.turn)).size;
    for (let index = 1; index < rows.length; index++) {
      gapsMs.push((rows[index]?.at ?? 0) - (rows[index - 1]?.at ?? 0));
    }
  }
  return {
    gapsMs,
    sessions: counted,
    stepsPerTurn: turns === 0 ? 1 : requests / turns,
    requestsPerSession: counted === 0 ? 0 : requests / counted,
  };
}
