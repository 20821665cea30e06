import { type MissRate, ratesTable } from './miss-rates.js';
import type { OverviewFilter } from './overview.js';
import { SESSION_DIMENSIONS, type SessionDimension, type SessionLabelValues } from './overview.js';
import { type SqlRow, type SqlRunner, toNullableString } from './sql-runner.js';

/** SQL text with its `?` parameters, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Label filters as a restriction on `column` (a session id): sessions whose `session.started` carries every label. */
export function sessionRestriction(filter: OverviewFilter, column: string): SqlPart {
  const labels = SESSION_DIMENSIONS.filter((name) => filter[name] !== undefined);
  if (labels.length === 0) return { sql: '', params: [] };
  return {
    sql: ` AND ${column} IN (SELECT session_id FROM events WHERE type = 'session.started'${labels.map((name) => ` AND ${name} = ?`).join('')})`,
    params: labels.map((name) => filter[name]),
  };
}

/** Time bounds on `column` (epoch ms, inclusive). */
export function timeRestriction(filter: OverviewFilter, column: string): SqlPart {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.from !== undefined) {
    clauses.push(` AND ${column} >= ?`);
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    clauses.push(` AND ${column} <= ?`);
    params.push(filter.to);
  }
  return { sql: clauses.join(''), params };
}

/** Conditions on `usage.recorded` rows (no alias): labels, time and model. */
export function usageConditions(filter: OverviewFilter): SqlPart {
  const parts = [sessionRestriction(filter, 'session_id'), timeRestriction(filter, 'at')];
  if (filter.model !== undefined) parts.push({ sql: ' AND model = ?', params: [filter.model] });
  return joinParts(parts);
}

export function joinParts(parts: readonly SqlPart[]): SqlPart {
  return { sql: parts.map((part) => part.sql).join(''), params: parts.flatMap((part) => part.params) };
}

/**
 * `rates`, `broke` and `priced` as CTEs: every `cache.break` matching the filter with the model
 * of its request (same session, turn and step) and the money it lost (missed tokens × that
 * model's input − read rate, 0 when unpriced). Callers continue with `SELECT ... FROM priced`.
 */
export function pricedBreaks(filter: OverviewFilter, rates: readonly MissRate[]): SqlPart {
  const table = ratesTable(rates);
  const restrict = joinParts([timeRestriction(filter, 'b.at'), sessionRestriction(filter, 'b.session_id')]);
  const model = filter.model === undefined ? { sql: '', params: [] } : { sql: ' WHERE broke.model = ?', params: [filter.model] };
  return {
    sql: `WITH rates (model, per_token) AS (${table.sql}),
     broke AS (
       SELECT b.session_id, b.seq, b.at, b.turn, b.step, b.cause, b.missed_tokens,
         (SELECT MIN(u.model) FROM events u
          WHERE u.session_id = b.session_id AND u.type = 'usage.recorded' AND u.turn = b.turn AND u.step = b.step) AS model
       FROM events b WHERE b.type = 'cache.break'${restrict.sql}
     ),
     priced AS (
       SELECT broke.session_id, broke.seq, broke.at, broke.turn, broke.step, broke.cause, broke.model,
         COALESCE(broke.missed_tokens, 0) AS missed_tokens,
         COALESCE(broke.missed_tokens, 0) * COALESCE(rates.per_token, 0) AS lost_usd
       FROM broke LEFT JOIN rates ON rates.model = broke.model${model.sql}
     )`,
    params: [...table.params, ...restrict.params, ...model.params],
  };
}

/** Time bucket start (epoch ms, UTC) of `column`: SQLite divides integers; PostgreSQL's `at` is double precision. */
export function bucketExpression(dialect: SqlRunner['dialect'], column: string, sizeMs: number): string {
  return dialect === 'sqlite'
    ? `(CAST(${column} AS INTEGER) / ${sizeMs}) * ${sizeMs}`
    : `CAST(FLOOR(${column} / ${sizeMs}) * ${sizeMs} AS BIGINT)`;
}

/** Columns of `session.started` as `SessionLabelValues` reads them (alias `s`). */
export const LABEL_COLUMNS = `${SESSION_DIMENSIONS.map((name) => `s.${name}`).join(', ')}, s.model AS started_model`;

export function labelValues(row: SqlRow): SessionLabelValues {
  const values = Object.fromEntries(SESSION_DIMENSIONS.map((name) => [name, toNullableString(row[name])])) as Record<
    SessionDimension,
    string | null
  >;
  return { ...values, model: toNullableString(row.started_model) };
}

/** The labels of some sessions, by id. */
export async function labelsOf(runner: SqlRunner, sessionIds: readonly string[]): Promise<Map<string, SessionLabelValues>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await runner.all(
    `SELECT s.session_id, ${LABEL_COLUMNS} FROM events s
     WHERE s.type = 'session.started' AND s.session_id IN (${sessionIds.map(() => '?').join(', ')})`,
    sessionIds,
  );
  return new Map(rows.map((row) => [String(row.session_id), labelValues(row)]));
}

export const NO_LABELS: SessionLabelValues = {
  source: null,
  client: null,
  provider: null,
  strategy: null,
  run: null,
  workload: null,
  project: null,
  model: null,
};
