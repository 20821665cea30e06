import type { SessionExpectations } from '../session/session.js';
import type { TraceStore } from '../trace/trace-store.js';

/** The kind of request a gap followed: a turn start (the user's message is last) or a tool-loop step. */
export type RequestKind = 'turn-start' | 'tool-step';

/** What earlier sessions of a deployment looked like: the priors of the TTL and tail-scope choices. */
export interface SessionRhythm extends Required<SessionExpectations> {
  /** Gaps between consecutive requests of those sessions, in ms (`TtlPolicyInput.priorGapsMs`). */
  gapsMs: number[];
  /**
   * The same gaps by the kind of request that preceded each (`TtlPolicyInput.kindGapsMs` takes the
   * list of the request being sent): a request is a turn start when it is the first of its turn.
   */
  kindGapsMs: Record<RequestKind, number[]>;
  /**
   * The gaps that followed a turn's last request (between requests of different turns): what a
   * harness waits through once a reply has ended the turn and the user reads. `startKeepWarm`'s
   * `gapsMs` after such a reply; the other gaps followed tool calls.
   */
  turnEndGapsMs: number[];
  /** How many sessions the figures come from (0: no history; the figures are then neutral). */
  sessions: number;
}

/**
 * Read the rhythm of the latest `limit` sessions [50] from a trace store: the gaps between their
 * requests (so the TTL policy knows whether users pause before this session's first pause), the
 * same gaps by the kind of request before them and those after turn ends (trace rows carry their
 * turn: a gap between rows of different turns followed the turn's end), and their average
 * requests per turn and per session (so `auto` tail scopes know the turn shape). Pass the result
 * to `new SessionTtl(session, { prior: rhythm, ... })` (or `chooseHistoryTtl({ priorGapsMs:
 * rhythm.gapsMs, kindGapsMs: rhythm.kindGapsMs[kind], ... })`) and to
 * `new Session({ expectations: rhythm, ... })`.
 *
 * @example
 * const rhythm = await sessionRhythmFromTrace(store);
 * const session = new Session({ ...options, expectations: rhythm });
 */
export async function sessionRhythmFromTrace(store: TraceStore, options: { limit?: number } = {}): Promise<SessionRhythm> {
  const sessions = await store.sessions({ limit: options.limit ?? 50 });
  const gapsMs: number[] = [];
  const kindGapsMs: Record<RequestKind, number[]> = { 'turn-start': [], 'tool-step': [] };
  const turnEndGapsMs: number[] = [];
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
      const before = rows[index - 1];
      const after = rows[index];
      if (!before || !after) continue;
      const gap = after.at - before.at;
      gapsMs.push(gap);
      const kind: RequestKind = index === 1 || rows[index - 2]?.turn !== before.turn ? 'turn-start' : 'tool-step';
      kindGapsMs[kind].push(gap);
      if (after.turn !== before.turn) turnEndGapsMs.push(gap);
    }
  }
  return {
    gapsMs,
    kindGapsMs,
    turnEndGapsMs,
    sessions: counted,
    stepsPerTurn: turns === 0 ? 1 : requests / turns,
    requestsPerSession: counted === 0 ? 0 : requests / counted,
  };
}
