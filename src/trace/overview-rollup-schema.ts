import type { SqlRunner } from './sql-runner.js';

type TraceBackend = SqlRunner['dialect'];

/** The rollups' time grain: the overview's finest bucket. Days are whole hours (UTC), so both buckets read them. */
export const ROLLUP_HOUR_MS = 3_600_000;

/** Start of the hour (epoch ms, UTC) of `column`: SQLite divides integers; PostgreSQL's `at` is double precision. */
export function hourOf(backend: TraceBackend, column: string, sizeMs = ROLLUP_HOUR_MS): string {
  return backend === 'sqlite'
    ? `(CAST(${column} AS INTEGER) / ${sizeMs}) * ${sizeMs}`
    : `CAST(FLOOR(${column} / ${sizeMs}) * ${sizeMs} AS BIGINT)`;
}

/**
 * The model of a break's request: the smallest model name among the usage rows of the same
 * session, turn and step (NULL while none is stored). `b` is the break row's alias.
 */
export const BREAK_MODEL_SQL = `(SELECT MIN(u.model) FROM events u
  WHERE u.session_id = b.session_id AND u.type = 'usage.recorded' AND u.turn = b.turn AND u.step = b.step)`;

/** Token and money columns of `overview_usage`, in table order, as `USAGE_SUM_COLUMNS` names them. */
export const ROLLUP_SUM_COLUMNS = [
  'uncached_input',
  'cache_read',
  'cache_write_5m',
  'cache_write_1h',
  'output',
  'cost_usd',
  'uncached_cost_usd',
] as const;

/** The sums of those columns under their own names (as `sumsFromRow` reads them). */
export const ROLLUP_SUMS = ROLLUP_SUM_COLUMNS.map((name) => `SUM(${name}) AS ${name}`).join(', ');

/**
 * The overview's rollups (migration 4), kept on insert by `rollupMaintenance`:
 * - `overview_usage`: one row per session, hour and model with the sums of its `usage.recorded` rows;
 * - `overview_breaks`: every `cache.break` with its request's model resolved (so a break is priced
 *   without a per-break lookup), ordered for "the costliest breaks of a cause";
 * - `overview_break_sums`: breaks and missed tokens per session, hour, model ('' when the break's
 *   request is not stored) and cause.
 * The statements end with the backfill of an existing store.
 */
export function rollupMigration(backend: TraceBackend): string[] {
  const money = backend === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION';
  const hour = hourOf(backend, 'at');
  return [
    `CREATE TABLE overview_usage (
      session_id TEXT NOT NULL,
      hour_at BIGINT NOT NULL,
      model TEXT NOT NULL,
      requests BIGINT NOT NULL,
      uncached_input BIGINT NOT NULL,
      cache_read BIGINT NOT NULL,
      cache_write_5m BIGINT NOT NULL,
      cache_write_1h BIGINT NOT NULL,
      output BIGINT NOT NULL,
      cost_usd ${money} NOT NULL,
      uncached_cost_usd ${money} NOT NULL,
      first_at ${money} NOT NULL,
      last_at ${money} NOT NULL,
      PRIMARY KEY (session_id, hour_at, model)
    )`,
    'CREATE INDEX overview_usage_hour ON overview_usage (hour_at)',
    `CREATE TABLE overview_breaks (
      session_id TEXT NOT NULL,
      seq BIGINT NOT NULL,
      at ${money} NOT NULL,
      hour_at BIGINT NOT NULL,
      turn BIGINT,
      step BIGINT,
      cause TEXT NOT NULL,
      missed_tokens BIGINT NOT NULL,
      model TEXT,
      PRIMARY KEY (session_id, seq)
    )`,
    'CREATE INDEX overview_breaks_request ON overview_breaks (session_id, turn, step)',
    'CREATE INDEX overview_breaks_costliest ON overview_breaks (cause, model, missed_tokens DESC, session_id, seq)',
    'CREATE INDEX overview_breaks_at ON overview_breaks (at)',
    `CREATE TABLE overview_break_sums (
      session_id TEXT NOT NULL,
      hour_at BIGINT NOT NULL,
      model TEXT NOT NULL,
      cause TEXT NOT NULL,
      breaks BIGINT NOT NULL,
      missed_tokens BIGINT NOT NULL,
      PRIMARY KEY (session_id, hour_at, model, cause)
    )`,
    'CREATE INDEX overview_break_sums_hour ON overview_break_sums (hour_at)',
    `INSERT INTO overview_usage (session_id, hour_at, model, requests, ${ROLLUP_SUM_COLUMNS.join(', ')}, first_at, last_at)
     SELECT session_id, ${hour}, model, COUNT(*),
       COALESCE(SUM(uncached_input_tokens), 0), COALESCE(SUM(cache_read_tokens), 0),
       COALESCE(SUM(cache_write_5m_tokens), 0), COALESCE(SUM(cache_write_1h_tokens), 0), COALESCE(SUM(output_tokens), 0),
       COALESCE(SUM(cost_usd), 0), COALESCE(SUM(uncached_cost_usd), 0), MIN(at), MAX(at)
     FROM events WHERE type = 'usage.recorded' AND model IS NOT NULL GROUP BY session_id, ${hour}, model`,
    `INSERT INTO overview_breaks (session_id, seq, at, hour_at, turn, step, cause, missed_tokens, model)
     SELECT b.session_id, b.seq, b.at, ${hourOf(backend, 'b.at')}, b.turn, b.step, b.cause, COALESCE(b.missed_tokens, 0),
       ${BREAK_MODEL_SQL}
     FROM events b WHERE b.type = 'cache.break' AND b.cause IS NOT NULL`,
    `INSERT INTO overview_break_sums (session_id, hour_at, model, cause, breaks, missed_tokens)
     SELECT session_id, hour_at, COALESCE(model, ''), cause, COUNT(*), SUM(missed_tokens)
     FROM overview_breaks GROUP BY session_id, hour_at, COALESCE(model, ''), cause`,
  ];
}
