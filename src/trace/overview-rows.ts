import { type MissRate, ratesTable } from './miss-rates.js';
import type { OverviewFilter, OverviewSource } from './overview.js';
import { BREAK_MODEL_SQL, hourOf, ROLLUP_HOUR_MS, ROLLUP_SUM_COLUMNS, ROLLUP_SUMS } from './overview-rollup-schema.js';
import { hasLabels, type SqlPart, sessionRestriction } from './overview-sql.js';
import type { SqlRunner } from './sql-runner.js';

type TraceBackend = SqlRunner['dialect'];

/**
 * The usage sums matching a filter as a CTE `usage_rows (session_id, hour_at, model, requests,
 * uncached_input, cache_read, cache_write_5m, cache_write_1h, output, cost_usd, uncached_cost_usd,
 * first_at, last_at)`, one row per session, hour and model (a session and hour may appear twice:
 * whole hours from the rollup, partial ones from the events). Starts with `WITH`.
 */
export function usageRows(backend: TraceBackend, filter: OverviewFilter, source: OverviewSource): SqlPart {
  const labels = sessionRestriction(filter, 'session_id', source);
  const model: SqlPart = filter.model === undefined ? { sql: '', params: [] } : { sql: ' AND model = ?', params: [filter.model] };
  const hour = hourOf(backend, 'at');
  const fromEvents = (time: SqlPart): SqlPart => ({
    sql: `SELECT session_id, ${hour} AS hour_at, model, COUNT(*) AS requests,
       COALESCE(SUM(uncached_input_tokens), 0) AS uncached_input, COALESCE(SUM(cache_read_tokens), 0) AS cache_read,
       COALESCE(SUM(cache_write_5m_tokens), 0) AS cache_write_5m, COALESCE(SUM(cache_write_1h_tokens), 0) AS cache_write_1h,
       COALESCE(SUM(output_tokens), 0) AS output, COALESCE(SUM(cost_usd), 0) AS cost_usd,
       COALESCE(SUM(uncached_cost_usd), 0) AS uncached_cost_usd, MIN(at) AS first_at, MAX(at) AS last_at
     FROM events WHERE type = 'usage.recorded' AND model IS NOT NULL${time.sql}${labels.sql}${model.sql}
     GROUP BY session_id, ${hour}, model`,
    params: [...time.params, ...labels.params, ...model.params],
  });
  const fromRollup = (hours: SqlPart): SqlPart => ({
    sql: `SELECT session_id, hour_at, model, requests, uncached_input, cache_read, cache_write_5m, cache_write_1h, output,
       cost_usd, uncached_cost_usd, first_at, last_at
     FROM overview_usage WHERE 1 = 1${hours.sql}${labels.sql}${model.sql}`,
    params: [...hours.params, ...labels.params, ...model.params],
  });
  return withCte('usage_rows', split(filter, source, fromRollup, fromEvents));
}

/**
 * Breaks matching a filter, priced: CTEs `rates` and `break_rows (session_id, hour_at, model,
 * cause, breaks, missed_tokens, lost_usd)`, where a break's model is its request's (null when
 * that request is not stored) and it lost its missed tokens × that model's input − read rate
 * (0 when unpriced). Starts with `WITH`.
 */
export function breakRows(
  backend: TraceBackend,
  filter: OverviewFilter,
  rates: readonly MissRate[],
  source: OverviewSource,
  grain: 'session' | 'cause' = 'session',
): SqlPart {
  const labels = sessionRestriction(filter, 'b.session_id', source);
  const model: SqlPart =
    filter.model === undefined ? { sql: '', params: [] } : { sql: ' AND b.model = ?', params: [filter.model] };
  const fromBreaks = (time: SqlPart): SqlPart => ({
    sql: `SELECT b.session_id, b.hour_at, b.model, b.cause, COUNT(*) AS breaks, SUM(b.missed_tokens) AS missed_tokens
     FROM ${breakTable(backend, source)} b WHERE 1 = 1${time.sql.replaceAll(' at ', ' b.at ')}${labels.sql}${model.sql}
     GROUP BY b.session_id, b.hour_at, b.model, b.cause`,
    params: [...time.params, ...labels.params, ...model.params],
  });
  const fromSums = (hours: SqlPart): SqlPart => ({
    sql: `SELECT b.session_id, b.hour_at, b.model, b.cause, b.breaks, b.missed_tokens
     FROM (SELECT session_id, hour_at, NULLIF(model, '') AS model, cause, breaks, missed_tokens FROM overview_break_sums) b
     WHERE 1 = 1${hours.sql.replaceAll(' hour_at ', ' b.hour_at ')}${labels.sql}${model.sql}`,
    params: [...hours.params, ...labels.params, ...model.params],
  });
  // Without a label filter, the miss causes need no session: the cause sums across sessions answer.
  const fromCauseSums = (hours: SqlPart): SqlPart => ({
    sql: `SELECT CAST(NULL AS TEXT) AS session_id, b.hour_at, NULLIF(b.model, '') AS model, b.cause, b.breaks, b.missed_tokens
     FROM overview_cause_sums b WHERE b.breaks > 0${hours.sql.replaceAll(' hour_at ', ' b.hour_at ')}${model.sql.replace(' b.model = ?', " NULLIF(b.model, '') = ?")}`,
    params: [...hours.params, ...model.params],
  });
  const table = ratesTable(rates);
  const rows = split(filter, source, grain === 'cause' && !hasLabels(filter) ? fromCauseSums : fromSums, fromBreaks);
  return {
    sql: `WITH rates (model, per_token) AS (${table.sql}),
     counted_breaks AS (${rows.sql}),
     break_rows AS (
       SELECT counted_breaks.*, counted_breaks.missed_tokens * COALESCE(rates.per_token, 0) AS lost_usd
       FROM counted_breaks LEFT JOIN rates ON rates.model = counted_breaks.model
     )`,
    params: [...table.params, ...rows.params],
  };
}

/**
 * Whether the session-grain rollups answer a filter: read from the rollups, with no time range and
 * no model (a session's totals span all its hours and models).
 */
export function sessionGrain(filter: OverviewFilter, source: OverviewSource): boolean {
  return source === 'rollup' && filter.from === undefined && filter.to === undefined && filter.model === undefined;
}

/**
 * The matching requests summed per session as a CTE `session_usage (session_id, requests,
 * ...sums, first_at, last_at)`, one row per session with a matching request. Starts with `WITH`.
 */
export function sessionUsageRows(backend: TraceBackend, filter: OverviewFilter, source: OverviewSource): SqlPart {
  if (sessionGrain(filter, source)) {
    const labels = sessionRestriction(filter, 'session_id', source);
    return {
      sql: `WITH session_usage AS (
        SELECT session_id, requests, ${ROLLUP_SUM_COLUMNS.join(', ')}, first_at, last_at
        FROM overview_sessions WHERE requests > 0${labels.sql})`,
      params: labels.params,
    };
  }
  const usage = usageRows(backend, filter, source);
  return {
    sql: `${usage.sql}, session_usage AS (
      SELECT session_id, SUM(requests) AS requests, ${ROLLUP_SUMS}, MIN(first_at) AS first_at, MAX(last_at) AS last_at
      FROM usage_rows GROUP BY session_id)`,
    params: usage.params,
  };
}

/**
 * The matching breaks' losses per session as CTEs ending in `session_losses (session_id, breaks,
 * missed_tokens, lost_usd)`, priced as `breakRows` prices them. Starts with `WITH`.
 */
export function sessionLossRows(
  backend: TraceBackend,
  filter: OverviewFilter,
  rates: readonly MissRate[],
  source: OverviewSource,
): SqlPart {
  if (sessionGrain(filter, source)) {
    const labels = sessionRestriction(filter, 'l.session_id', source);
    const table = ratesTable(rates);
    return {
      sql: `WITH rates (model, per_token) AS (${table.sql}),
       session_losses AS (
         SELECT l.session_id, SUM(l.breaks) AS breaks, SUM(l.missed_tokens) AS missed_tokens,
           SUM(l.missed_tokens * COALESCE(rates.per_token, 0)) AS lost_usd
         FROM overview_session_losses l LEFT JOIN rates ON rates.model = l.model
         WHERE 1 = 1${labels.sql} GROUP BY l.session_id)`,
      params: [...table.params, ...labels.params],
    };
  }
  const breaks = breakRows(backend, filter, rates, source);
  return {
    sql: `${breaks.sql},
     session_losses AS (
       SELECT session_id, SUM(breaks) AS breaks, SUM(missed_tokens) AS missed_tokens, SUM(lost_usd) AS lost_usd
       FROM break_rows GROUP BY session_id)`,
    params: breaks.params,
  };
}

/**
 * Every break as a row `(session_id, seq, at, hour_at, turn, step, cause, missed_tokens, model)`:
 * the rollup's table, or the events with each break's request model looked up.
 */
export function breakTable(backend: TraceBackend, source: OverviewSource): string {
  if (source === 'rollup') return 'overview_breaks';
  return `(SELECT b.session_id, b.seq, b.at, ${hourOf(backend, 'b.at')} AS hour_at, b.turn, b.step, b.cause,
      COALESCE(b.missed_tokens, 0) AS missed_tokens, ${BREAK_MODEL_SQL} AS model
    FROM events b WHERE b.type = 'cache.break' AND b.cause IS NOT NULL)`;
}

/**
 * A filter's time range as rollup hours and event edges. Whole hours inside `[from, to]` come from
 * the rollup; the partial hours at either end from the events, so the answer is exact at any
 * millisecond. `rollup(hours)` and `events(time)` get conditions starting with ` AND`.
 */
function split(
  filter: OverviewFilter,
  source: OverviewSource,
  rollup: (hours: SqlPart) => SqlPart,
  events: (time: SqlPart) => SqlPart,
): SqlPart {
  const { from, to } = filter;
  const range = (start?: number, end?: number, endInclusive = true): SqlPart => ({
    sql: `${start === undefined ? '' : ' AND at >= ?'}${end === undefined ? '' : endInclusive ? ' AND at <= ?' : ' AND at < ?'}`,
    params: [...(start === undefined ? [] : [start]), ...(end === undefined ? [] : [end])],
  });
  if (source === 'events') return events(range(from, to));
  if (from === undefined && to === undefined) return rollup({ sql: '', params: [] });
  const firstWhole = from === undefined ? undefined : Math.ceil(from / ROLLUP_HOUR_MS) * ROLLUP_HOUR_MS;
  const wholeEnd = to === undefined ? undefined : Math.floor(to / ROLLUP_HOUR_MS) * ROLLUP_HOUR_MS;
  if (firstWhole !== undefined && wholeEnd !== undefined && wholeEnd < firstWhole) return events(range(from, to));
  const parts = [
    rollup({
      sql: `${firstWhole === undefined ? '' : ' AND hour_at >= ?'}${wholeEnd === undefined ? '' : ' AND hour_at < ?'}`,
      params: [...(firstWhole === undefined ? [] : [firstWhole]), ...(wholeEnd === undefined ? [] : [wholeEnd])],
    }),
  ];
  if (from !== undefined && firstWhole !== undefined && from < firstWhole) parts.push(events(range(from, firstWhole, false)));
  if (to !== undefined && wholeEnd !== undefined) parts.push(events(range(wholeEnd, to)));
  return { sql: parts.map((part) => part.sql).join('\n UNION ALL\n '), params: parts.flatMap((part) => part.params) };
}

function withCte(name: string, body: SqlPart): SqlPart {
  return { sql: `WITH ${name} AS (${body.sql})`, params: body.params };
}
