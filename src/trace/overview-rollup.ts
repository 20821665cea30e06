import type { CachetEvent } from '../events/catalog.js';
import { BREAK_MODEL_SQL, hourOf, ROLLUP_HOUR_MS, ROLLUP_SUM_COLUMNS } from './overview-rollup-schema.js';
import {
  addSessionUsage,
  chunks,
  marks,
  recomputeSessionLosses,
  shiftCauseSums,
  startedMaintenance,
} from './overview-session-rollup.js';
import type { SqlPart } from './overview-sql.js';
import type { SqlRunner } from './sql-runner.js';

type TraceBackend = SqlRunner['dialect'];

/** Rows per multi-row statement: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_STATEMENT = 500;

type UsageEvent = CachetEvent<'usage.recorded'>;
type BreakEvent = CachetEvent<'cache.break'>;

export interface RollupOptions {
  /**
   * Sessions of the batch's usage known to have no stored break (a store that reads before it
   * writes): their break sums, losses and stale break models are left alone, since every
   * statement about them would find no break and change nothing. A break in the batch itself
   * still counts.
   */
  sessionsWithoutBreaks?: ReadonlySet<string>;
}

/**
 * The statements that bring the overview's rollups up to date with a batch of events, run in
 * the insert's transaction after the events themselves (so a break finds a request stored in
 * the same batch). Usage sums are added (an upsert per session, hour and model); breaks are
 * stored with their request's model; a break stored before its request gets that model when
 * the request arrives; the break sums of every session whose breaks changed are recomputed
 * from its breaks. Only SQL, no reads: the same list runs on both backends.
 */
export function rollupMaintenance(backend: TraceBackend, events: readonly CachetEvent[], options: RollupOptions = {}): SqlPart[] {
  const usages = events.filter((event): event is UsageEvent => event.type === 'usage.recorded');
  const breaks = events.filter((event): event is BreakEvent => event.type === 'cache.break');
  const statements: SqlPart[] = [];
  const sums = usageSums(usages);
  for (const rows of chunks(sums, ROWS_PER_STATEMENT)) statements.push(upsertUsage(rows));
  statements.push(...addSessionUsage(sessionSums(sums)), ...startedMaintenance(events));
  for (const rows of chunks(breaks, ROWS_PER_STATEMENT)) statements.push(insertBreaks(backend, rows));
  const breakSessions = [...new Set(breaks.map((event) => event.sessionId))];
  const breakFree = options.sessionsWithoutBreaks;
  const usageSessions = [...new Set(usages.map((event) => event.sessionId))].filter(
    (sessionId) => !breakFree?.has(sessionId) || breakSessions.includes(sessionId),
  );
  const touched = [...new Set([...breakSessions, ...usageSessions])];
  // The cause sums lose these sessions' break sums now and get them back once recomputed below.
  statements.push(...shiftCauseSums(touched, -1));
  // A break whose request was not stored yet (or whose request had another model) is stale now.
  const stale = `(b.model IS NULL AND ${BREAK_MODEL_SQL} IS NOT NULL) OR b.model > ${BREAK_MODEL_SQL}`;
  for (const ids of chunks(breakSessions, ROWS_PER_STATEMENT)) {
    statements.push({ sql: `DELETE FROM overview_break_sums WHERE session_id IN (${marks(ids.length)})`, params: ids });
  }
  for (const ids of chunks(usageSessions, ROWS_PER_STATEMENT)) {
    statements.push({
      sql: `DELETE FROM overview_break_sums WHERE session_id IN (
        SELECT b.session_id FROM overview_breaks b WHERE b.session_id IN (${marks(ids.length)}) AND (${stale}))`,
      params: ids,
    });
    statements.push({
      sql: `UPDATE overview_breaks AS b SET model = ${BREAK_MODEL_SQL}
            WHERE b.session_id IN (${marks(ids.length)}) AND (${stale})`,
      params: ids,
    });
  }
  // Sessions with breaks but no sums are the ones just cleared (or new): sum their breaks again.
  for (const ids of chunks(touched, ROWS_PER_STATEMENT)) {
    statements.push({
      sql: `INSERT INTO overview_break_sums (session_id, hour_at, model, cause, breaks, missed_tokens)
            SELECT b.session_id, b.hour_at, COALESCE(b.model, ''), b.cause, COUNT(*), SUM(b.missed_tokens)
            FROM overview_breaks b WHERE b.session_id IN (${marks(ids.length)})
              AND NOT EXISTS (SELECT 1 FROM overview_break_sums s WHERE s.session_id = b.session_id)
            GROUP BY b.session_id, b.hour_at, COALESCE(b.model, ''), b.cause`,
      params: ids,
    });
  }
  statements.push(...shiftCauseSums(touched, 1), ...recomputeSessionLosses(touched));
  return statements;
}

/** The hourly sums of a batch added up per session: `(session_id, requests, ...sums, first_at, last_at)`. */
function sessionSums(rows: readonly UsageSumRow[]): unknown[][] {
  const sessions = new Map<string, { values: number[]; firstAt: number; lastAt: number }>();
  for (const row of rows) {
    const [sessionId, _hour, _model, ...figures] = row.values;
    const session = sessions.get(sessionId);
    if (!session) {
      sessions.set(sessionId, { values: [...figures], firstAt: row.firstAt, lastAt: row.lastAt });
      continue;
    }
    for (const [index, figure] of figures.entries()) session.values[index]! += figure;
    session.firstAt = Math.min(session.firstAt, row.firstAt);
    session.lastAt = Math.max(session.lastAt, row.lastAt);
  }
  return [...sessions].map(([sessionId, session]) => [sessionId, ...session.values, session.firstAt, session.lastAt]);
}

interface UsageSumRow {
  key: string;
  values: [string, number, string, number, ...number[]];
  firstAt: number;
  lastAt: number;
}

/** The batch's usage added up per session, hour and model (tokens are integers: the sums are exact). */
function usageSums(usages: readonly UsageEvent[]): UsageSumRow[] {
  const rows = new Map<string, UsageSumRow>();
  for (const event of usages) {
    const hour = Math.floor(event.at / ROLLUP_HOUR_MS) * ROLLUP_HOUR_MS;
    const key = JSON.stringify([event.sessionId, hour, event.payload.model]);
    const { usage } = event.payload;
    const figures = [
      usage.uncachedInputTokens,
      usage.cacheReadTokens,
      usage.cacheWrite5mTokens,
      usage.cacheWrite1hTokens,
      usage.outputTokens,
      event.payload.costUsd,
      event.payload.uncachedCostUsd,
    ];
    const row = rows.get(key);
    if (!row) {
      rows.set(key, {
        key,
        values: [event.sessionId, hour, event.payload.model, 1, ...figures],
        firstAt: event.at,
        lastAt: event.at,
      });
      continue;
    }
    row.values[3] += 1;
    for (const [index, figure] of figures.entries()) (row.values[4 + index] as number) += figure;
    row.firstAt = Math.min(row.firstAt, event.at);
    row.lastAt = Math.max(row.lastAt, event.at);
  }
  return [...rows.values()];
}

function upsertUsage(rows: readonly UsageSumRow[]): SqlPart {
  const columns = ['session_id', 'hour_at', 'model', 'requests', ...ROLLUP_SUM_COLUMNS, 'first_at', 'last_at'];
  const added = ['requests', ...ROLLUP_SUM_COLUMNS].map((name) => `${name} = overview_usage.${name} + excluded.${name}`);
  return {
    sql: `INSERT INTO overview_usage (${columns.join(', ')})
      VALUES ${rows.map(() => `(${marks(columns.length)})`).join(', ')}
      ON CONFLICT (session_id, hour_at, model) DO UPDATE SET ${added.join(', ')},
        first_at = CASE WHEN excluded.first_at < overview_usage.first_at THEN excluded.first_at ELSE overview_usage.first_at END,
        last_at = CASE WHEN excluded.last_at > overview_usage.last_at THEN excluded.last_at ELSE overview_usage.last_at END`,
    params: rows.flatMap((row) => [...row.values, row.firstAt, row.lastAt]),
  };
}

/** Typed VALUES (PostgreSQL infers a VALUES column from its parameters only when cast). */
function insertBreaks(backend: TraceBackend, breaks: readonly BreakEvent[]): SqlPart {
  const row = `(CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), CAST(? AS BIGINT), CAST(? AS BIGINT),
    CAST(? AS TEXT), CAST(? AS BIGINT))`;
  return {
    sql: `INSERT INTO overview_breaks (session_id, seq, at, hour_at, turn, step, cause, missed_tokens, model)
      SELECT b.session_id, b.seq, b.at, ${hourOf(backend, 'b.at')}, b.turn, b.step, b.cause, b.missed_tokens, ${BREAK_MODEL_SQL}
      FROM (SELECT column1 AS session_id, column2 AS seq, column3 AS at, column4 AS turn, column5 AS step,
              column6 AS cause, column7 AS missed_tokens
            FROM (VALUES ${breaks.map(() => row).join(', ')}) AS v) b`,
    params: breaks.flatMap((event) => [
      event.sessionId,
      event.seq,
      event.at,
      event.payload.turn,
      event.payload.step,
      event.payload.cause,
      event.payload.missedTokens,
    ]),
  };
}
