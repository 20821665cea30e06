import type { CachetEvent } from '../events/catalog.js';
import { eventColumns } from './event-columns.js';
import { SESSION_DIMENSIONS } from './overview.js';
import { ROLLUP_SUM_COLUMNS } from './overview-rollup-schema.js';
import type { SqlPart } from './overview-sql.js';
import type { SqlRunner } from './sql-runner.js';

type TraceBackend = SqlRunner['dialect'];
type StartedEvent = CachetEvent<'session.started'>;

/** The facets' dimensions: the session labels and the model a session started with. */
export const FACET_DIMENSIONS = [...SESSION_DIMENSIONS, 'model'] as const;

/** Label columns of `overview_sessions`, as `session.started` carries them (`model`: the session's first model). */
const LABELS = [...SESSION_DIMENSIONS, 'model'] as const;

/**
 * The session-grain rollups (migration 6), kept on insert beside the hourly ones:
 * - `overview_sessions`: one row per session with its labels (from `session.started`) and the
 *   sums of all its requests, so an overview or session list without a time range or model reads
 *   10,000 rows for 10,000 sessions, not their hours, and filters labels without a join;
 * - `overview_session_losses`: breaks and missed tokens per session and model ('' unknown);
 * - `overview_cause_sums`: breaks and missed tokens per hour, model and cause across sessions
 *   (the miss causes without a label filter); a session's change is applied as a difference,
 *   so a row may fall to 0 breaks (read with `breaks > 0`);
 * - `overview_facets`: each dimension's values, for the filter selectors.
 * The statements end with the backfill from migration 4's rollups and the events, then `ANALYZE`.
 */
export function sessionRollupMigration(backend: TraceBackend): string[] {
  const money = backend === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION';
  const labels = LABELS.join(', ');
  const sums = ROLLUP_SUM_COLUMNS.join(', ');
  return [
    `CREATE TABLE overview_sessions (
      session_id TEXT PRIMARY KEY,
      ${LABELS.map((name) => `${name} TEXT`).join(', ')},
      oracle_cost_usd ${money},
      requests BIGINT NOT NULL,
      ${ROLLUP_SUM_COLUMNS.map((name) => `${name} ${name.endsWith('_usd') ? money : 'BIGINT'} NOT NULL`).join(', ')},
      first_at ${money},
      last_at ${money}
    )`,
    `CREATE TABLE overview_session_losses (
      session_id TEXT NOT NULL,
      model TEXT NOT NULL,
      breaks BIGINT NOT NULL,
      missed_tokens BIGINT NOT NULL,
      PRIMARY KEY (session_id, model)
    )`,
    `CREATE TABLE overview_cause_sums (
      hour_at BIGINT NOT NULL,
      model TEXT NOT NULL,
      cause TEXT NOT NULL,
      breaks BIGINT NOT NULL,
      missed_tokens BIGINT NOT NULL,
      PRIMARY KEY (hour_at, model, cause)
    )`,
    'CREATE TABLE overview_facets (dimension TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (dimension, value))',
    `INSERT INTO overview_sessions (session_id, ${labels}, oracle_cost_usd, requests, ${sums}, first_at, last_at)
     SELECT ids.session_id, ${LABELS.map((name) => `s.${name}`).join(', ')}, s.oracle_cost_usd,
       COALESCE(u.requests, 0), ${ROLLUP_SUM_COLUMNS.map((name) => `COALESCE(u.${name}, 0)`).join(', ')}, u.first_at, u.last_at
     FROM (SELECT session_id FROM overview_usage UNION SELECT session_id FROM events WHERE type = 'session.started') ids
     LEFT JOIN (SELECT session_id, SUM(requests) AS requests, ${ROLLUP_SUM_COLUMNS.map((name) => `SUM(${name}) AS ${name}`).join(', ')},
         MIN(first_at) AS first_at, MAX(last_at) AS last_at
       FROM overview_usage GROUP BY session_id) u ON u.session_id = ids.session_id
     LEFT JOIN (SELECT session_id, ${labels}, oracle_cost_usd, ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY id DESC) AS latest
       FROM events WHERE type = 'session.started') s ON s.session_id = ids.session_id AND s.latest = 1`,
    `INSERT INTO overview_session_losses (session_id, model, breaks, missed_tokens)
     SELECT session_id, COALESCE(model, ''), COUNT(*), SUM(missed_tokens) FROM overview_breaks GROUP BY session_id, COALESCE(model, '')`,
    `INSERT INTO overview_cause_sums (hour_at, model, cause, breaks, missed_tokens)
     SELECT hour_at, model, cause, SUM(breaks), SUM(missed_tokens) FROM overview_break_sums GROUP BY hour_at, model, cause`,
    ...FACET_DIMENSIONS.map(
      (name) => `INSERT INTO overview_facets (dimension, value)
       SELECT DISTINCT '${name}', ${name} FROM events WHERE type = 'session.started' AND ${name} IS NOT NULL`,
    ),
    // The planner's statistics for the new tables and the backfilled rollups.
    'ANALYZE',
  ];
}

/** Labels and facets of a batch's `session.started` events (the last of a session wins, as in the events' newest row). */
export function startedMaintenance(events: readonly CachetEvent[]): SqlPart[] {
  const started = new Map<string, StartedEvent>();
  for (const event of events) if (event.type === 'session.started') started.set(event.sessionId, event);
  if (started.size === 0) return [];
  const statements: SqlPart[] = [];
  const columns = ['session_id', ...LABELS, 'oracle_cost_usd', 'requests', ...ROLLUP_SUM_COLUMNS];
  const rows = [...started.values()].map((event) => {
    const values = eventColumns(event);
    return [event.sessionId, ...LABELS.map((name) => values[name]), values.oracleCostUsd, 0, ...ROLLUP_SUM_COLUMNS.map(() => 0)];
  });
  for (const chunk of chunks(rows, 200)) {
    statements.push({
      sql: `INSERT INTO overview_sessions (${columns.join(', ')}) VALUES ${chunk.map(() => `(${marks(columns.length)})`).join(', ')}
        ON CONFLICT (session_id) DO UPDATE SET ${[...LABELS, 'oracle_cost_usd'].map((name) => `${name} = excluded.${name}`).join(', ')}`,
      params: chunk.flat(),
    });
  }
  const facets = new Map<string, [string, string]>();
  for (const event of started.values()) {
    const values = eventColumns(event);
    for (const name of FACET_DIMENSIONS) {
      const value = values[name];
      if (value !== null) facets.set(JSON.stringify([name, value]), [name, value]);
    }
  }
  for (const chunk of chunks([...facets.values()], 500)) {
    statements.push({
      sql: `INSERT INTO overview_facets (dimension, value) VALUES ${chunk.map(() => '(?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
      params: chunk.flat(),
    });
  }
  return statements;
}

/** Rows `(session_id, requests, ...sums, first_at, last_at)` of one batch, added to the sessions' totals. */
export function addSessionUsage(rows: ReadonlyArray<readonly unknown[]>): SqlPart[] {
  const columns = ['session_id', 'requests', ...ROLLUP_SUM_COLUMNS, 'first_at', 'last_at'];
  const added = ['requests', ...ROLLUP_SUM_COLUMNS].map((name) => `${name} = overview_sessions.${name} + excluded.${name}`);
  return chunks(rows, 500).map((chunk) => ({
    sql: `INSERT INTO overview_sessions (${columns.join(', ')})
      VALUES ${chunk.map(() => `(${marks(columns.length)})`).join(', ')}
      ON CONFLICT (session_id) DO UPDATE SET ${added.join(', ')},
        first_at = CASE WHEN overview_sessions.first_at IS NULL OR excluded.first_at < overview_sessions.first_at
          THEN excluded.first_at ELSE overview_sessions.first_at END,
        last_at = CASE WHEN overview_sessions.last_at IS NULL OR excluded.last_at > overview_sessions.last_at
          THEN excluded.last_at ELSE overview_sessions.last_at END`,
    params: chunk.flat(),
  }));
}

/**
 * The cause sums' share of some sessions' break sums, taken out (`sign` −1, before their break
 * sums are recomputed) or put back (+1, after): unchanged sessions cancel out, changed ones move
 * by the difference.
 */
export function shiftCauseSums(sessionIds: readonly string[], sign: 1 | -1): SqlPart[] {
  return chunks(sessionIds, 500).map((ids) => ({
    sql: `INSERT INTO overview_cause_sums (hour_at, model, cause, breaks, missed_tokens)
      SELECT hour_at, model, cause, ${sign} * SUM(breaks), ${sign} * SUM(missed_tokens)
      FROM overview_break_sums WHERE session_id IN (${marks(ids.length)}) GROUP BY hour_at, model, cause
      ON CONFLICT (hour_at, model, cause) DO UPDATE SET breaks = overview_cause_sums.breaks + excluded.breaks,
        missed_tokens = overview_cause_sums.missed_tokens + excluded.missed_tokens`,
    params: [...ids],
  }));
}

/** Some sessions' losses per model, summed again from their breaks (after the breaks' models are settled). */
export function recomputeSessionLosses(sessionIds: readonly string[]): SqlPart[] {
  return chunks(sessionIds, 500).flatMap((ids) => [
    { sql: `DELETE FROM overview_session_losses WHERE session_id IN (${marks(ids.length)})`, params: [...ids] },
    {
      sql: `INSERT INTO overview_session_losses (session_id, model, breaks, missed_tokens)
        SELECT session_id, COALESCE(model, ''), COUNT(*), SUM(missed_tokens) FROM overview_breaks
        WHERE session_id IN (${marks(ids.length)}) GROUP BY session_id, COALESCE(model, '')`,
      params: [...ids],
    },
  ]);
}

export function marks(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
