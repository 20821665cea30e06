import { cacheFigures, ratio } from './analytics.js';
import { missRates } from './miss-rates.js';
import type { OverviewSource, SessionGroup, SessionListPage, SessionListQuery, SessionListRow, SessionSort } from './overview.js';
import { filterOf } from './overview-queries.js';
import { sessionLossRows, sessionUsageRows } from './overview-rows.js';
import { LABEL_COLUMNS, labelValues, type SqlPart, startedTable } from './overview-sql.js';
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
  const rows = sessionRows(
    sessionUsageRows(runner.dialect, filter, source),
    sessionLossRows(runner.dialect, filter, rates, source),
    source,
  );
  const groupColumn = groupBy === 'model' ? 'started_model' : groupBy;
  // Two statements, not three: the groups' query also counts every listed session (a window over all groups, before LIMIT).
  const [page, groups] = await Promise.all([
    runner.all(`${rows.sql} SELECT * FROM listed ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`, [...rows.params, limit, offset]),
    runner.all(
      `${rows.sql}
       SELECT ${groupColumn} AS group_key, COUNT(*) AS sessions, SUM(requests) AS requests, SUM(cost_usd) AS cost_usd,
         SUM(uncached_cost_usd) AS uncached_cost_usd, SUM(cache_read) AS cache_read, SUM(total_input) AS total_input,
         SUM(lost_usd) AS lost_usd, SUM(COUNT(*)) OVER () AS listed_sessions
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
    total: toNumber(groups[0]?.listed_sessions),
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

/**
 * CTEs ending in `listed`: one row per session with matching requests, its labels, sums and
 * losses. `perSession` and `losses` are `sessionUsageRows` and `sessionLossRows`.
 */
function sessionRows(perSession: SqlPart, losses: SqlPart, source: OverviewSource): SqlPart {
  return {
    sql: `${losses.sql},
     ${perSession.sql.replace(/^WITH /, '')},
     listed AS (
       SELECT u.*, ${LABEL_COLUMNS}, s.oracle_cost_usd,
         u.uncached_input + u.cache_read + u.cache_write_5m + u.cache_write_1h AS total_input,
         COALESCE(l.breaks, 0) AS breaks, COALESCE(l.lost_usd, 0) AS lost_usd,
         CASE WHEN s.oracle_cost_usd > 0 THEN u.cost_usd / s.oracle_cost_usd - 1 END AS regret
       FROM session_usage u
       LEFT JOIN ${startedTable(source)} s ON s.session_id = u.session_id
       LEFT JOIN session_losses l ON l.session_id = u.session_id
     )`,
    params: [...losses.params, ...perSession.params],
  };
}
