import type { OverviewFilter, OverviewSource } from './overview.js';
import { SESSION_DIMENSIONS, type SessionDimension, type SessionLabelValues } from './overview.js';
import { type SqlRow, type SqlRunner, toNullableString } from './sql-runner.js';

/** SQL text with its `?` parameters, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * Label filters as a restriction on `column` (a session id): sessions whose `session.started`
 * carries every label, read from the session rollup (`rollup`) or the events.
 */
export function sessionRestriction(filter: OverviewFilter, column: string, source: OverviewSource = 'events'): SqlPart {
  const labels = SESSION_DIMENSIONS.filter((name) => filter[name] !== undefined);
  if (labels.length === 0) return { sql: '', params: [] };
  const sessions =
    source === 'rollup'
      ? 'SELECT session_id FROM overview_sessions WHERE 1 = 1'
      : "SELECT session_id FROM events WHERE type = 'session.started'";
  return {
    sql: ` AND ${column} IN (${sessions}${labels.map((name) => ` AND ${name} = ?`).join('')})`,
    params: labels.map((name) => filter[name]),
  };
}

/** Whether a filter sets any session label. */
export function hasLabels(filter: OverviewFilter): boolean {
  return SESSION_DIMENSIONS.some((name) => filter[name] !== undefined);
}

/**
 * The sessions' labels as a table to join (columns `session_id`, the labels, `model` and
 * `oracle_cost_usd`): the session rollup, or the events' `session.started` rows.
 */
export function startedTable(source: OverviewSource): string {
  return source === 'rollup' ? 'overview_sessions' : "(SELECT * FROM events WHERE type = 'session.started')";
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

export function joinParts(parts: readonly SqlPart[]): SqlPart {
  return { sql: parts.map((part) => part.sql).join(''), params: parts.flatMap((part) => part.params) };
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
