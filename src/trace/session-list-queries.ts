import { cacheFigures, ratio } from './analytics.js';
import { missRates } from './miss-rates.js';
import type { OverviewSource, SessionGroup, SessionListPage, SessionListQuery, SessionListRow, SessionSort } from './overview.js';
import { filterOf, ROLLUP_SUMS } from './overview-queries.js';
import { breakRows, usageRows } from './overview-rows.js';
import { LABEL_COLUMNS, labelValues, type SqlPart } from './overview-sql.js';
import { sumsFromRow } from './sql-conditions.js';
import { type SqlRunner, toNullableNumber, toNumber } from './sql-runner.js';

const ORDER: Record<SessionSort, string> = {
  recent: 'last_at DESC, session_id',
  lost: 'lost_usd DESC, last_at DESC, session_id',
  cost: 'cost_usd DESC, last_at DESC, session_id',
  // Sessions without an oracle last (a NULL sorts first in PostgreSQL's DESC, last in SQLite's).
  regret: 'CASE WHEN regret IS NULL THEN 1 ELSE 0 END, regret DESC, session_id',
};

/**
 * One page of the sessions matching a filter, newest (or costliest, or most lost) first, with
 * the groups they fall into by one label. A row sums the session's matching requests and prices
 * its breaks as the overview does; sessions without a matching request are not listed.
 */
export async function querySessionList(
  runner: SqlRunner,
  query: SessionListQuery = {},
  source: OverviewSource = 'rollup',
): Promise<SessionListPage> {
  const filter = filterOf(query);
  const groupBy = query.groupBy ?? 'run';
  const sort = query.sort ?? 'recent';
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const { rates } = await missRates(runner, source);
  const rows = sessionRows(usageRows(runner.dialect, filter, source), breakRows(runner.dialect, filter, rates, source));
  const groupColumn = groupBy === 'model' ? 'started_model' : groupBy;
  const [page, counted, groups] = await Promise.all([
    runner.all(`${rows.sql} SELECT * FROM listed ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`, [...rows.params, limit, offset]),
    runner.all(`${rows.sql} SELECT COUNT(*) AS sessions FROM listed`, rows.params),
    runner.all(
      `${rows.sql}
       SELECT ${groupColumn} AS group_key, COUNT(*) AS sessions, SUM(requests) AS requests, SUM(cost_usd) AS cost_usd,
         SUM(uncached_cost_usd) AS uncached_cost_usd, SUM(cache_read) AS cache_read, SUM(total_input) AS total_input,
         SUM(lost_usd) AS lost_usd
       FROM listed GROUP BY ${groupColumn} ORDER BY SUM(cost_usd) DESC, COUNT(*) DESC, ${groupColumn} LIMIT 100`,
      rows.params,
    ),
  ]);
  return {
    filter,
    groupBy,
    sort,
    groups: groups.map(
      (row): SessionGroup => ({
        key: row.group_key === null || row.group_key === undefined ? null : String(row.group_key),
        sessions: toNumber(row.sessions),
        requests: toNumber(row.requests),
        costUsd: toNumber(row.cost_usd),
        uncachedCostUsd: toNumber(row.uncached_cost_usd),
        savingsUsd: toNumber(row.uncached_cost_usd) - toNumber(row.cost_usd),
        hitRate: ratio(toNumber(row.cache_read), toNumber(row.total_input)),
        lostUsd: toNumber(row.lost_usd),
      }),
    ),
    total: toNumber(counted[0]?.sessions),
    limit,
    offset,
    sessions: page.map((row): SessionListRow => {
      const { firstAt, lastAt, ...figures } = cacheFigures(sumsFromRow(row));
      return {
        sessionId: String(row.session_id),
        ...labelValues(row),
        ...figures,
        firstAt: firstAt ?? 0,
        lastAt: lastAt ?? 0,
        breaks: toNumber(row.breaks),
        lostUsd: toNumber(row.lost_usd),
        oracleCostUsd: toNullableNumber(row.oracle_cost_usd),
        regret: toNullableNumber(row.regret),
      };
    }),
  };
}

/** CTEs ending in `listed`: one row per session with matching requests, its labels, sums and losses. */
function sessionRows(usage: SqlPart, breaks: SqlPart): SqlPart {
  return {
    sql: `${breaks.sql},
     ${usage.sql.replace(/^WITH /, '')},
     per_session AS (
       SELECT session_id, SUM(requests) AS requests, ${ROLLUP_SUMS}, MIN(first_at) AS first_at, MAX(last_at) AS last_at
       FROM usage_rows GROUP BY session_id
     ),
     losses AS (SELECT session_id, SUM(breaks) AS breaks, SUM(lost_usd) AS lost_usd FROM break_rows GROUP BY session_id),
     listed AS (
       SELECT per_session.*, ${LABEL_COLUMNS}, s.oracle_cost_usd,
         per_session.uncached_input + per_session.cache_read + per_session.cache_write_5m + per_session.cache_write_1h AS total_input,
         COALESCE(losses.breaks, 0) AS breaks, COALESCE(losses.lost_usd, 0) AS lost_usd,
         CASE WHEN s.oracle_cost_usd > 0 THEN per_session.cost_usd / s.oracle_cost_usd - 1 END AS regret
       FROM per_session
       LEFT JOIN events s ON s.session_id = per_session.session_id AND s.type = 'session.started'
       LEFT JOIN losses ON losses.session_id = per_session.session_id
     )`,
    params: [...breaks.params, ...usage.params],
  };
}
