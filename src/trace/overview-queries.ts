import { addSums, cacheFigures, ZERO_SUMS } from './analytics.js';
import { missRates } from './miss-rates.js';
import {
  type OverviewBucket,
  type OverviewFacets,
  type OverviewFilter,
  type OverviewQuery,
  type OverviewReport,
  type OverviewSource,
  SESSION_DIMENSIONS,
  type SessionLoss,
  type SessionRegret,
} from './overview.js';
import { queryCauses } from './overview-causes.js';
import { hourOf, ROLLUP_SUMS } from './overview-rollup-schema.js';
import { breakRows, sessionLossRows, sessionUsageRows, usageRows } from './overview-rows.js';
import { LABEL_COLUMNS, labelsOf, labelValues, NO_LABELS, type SqlPart, startedTable } from './overview-sql.js';
import { sumsFromRow } from './sql-conditions.js';
import { type SqlRunner, toNumber } from './sql-runner.js';

const HOUR_MS = 3_600_000;
/** Values listed per facet. */
const FACET_LIMIT = 200;
const DAY_MS = 24 * HOUR_MS;
/** Up to this span the series is hourly by default, beyond it daily. */
const HOURLY_SPAN_MS = 3 * DAY_MS;

/**
 * The overview across sessions: spend, spend without cache, savings, hit rate and write share
 * per time bucket; miss causes ranked by money lost with example breaks; the sessions that lost
 * most; best and worst regret where the oracle is known; and the filter values. Every sum and
 * ranking runs in SQL (the same statements on SQLite and PostgreSQL).
 */
export async function queryOverview(
  runner: SqlRunner,
  query: OverviewQuery = {},
  source: OverviewSource = 'rollup',
): Promise<OverviewReport> {
  const filter = filterOf(query);
  const usage = usageRows(runner.dialect, filter, source);
  const bucket = query.bucket ?? (await defaultBucket(runner, usage));
  const { rates, unpriced } = await missRates(runner, source);
  const breaks = breakRows(runner.dialect, filter, rates, source, 'cause');
  const perSession = sessionUsageRows(runner.dialect, filter, source);
  const [series, causes, worstSessions, best, worst, facets] = await Promise.all([
    querySeries(runner, usage, bucket),
    queryCauses(runner, { filter, rates, breaks, source }),
    queryWorstSessions(runner, sessionLossRows(runner.dialect, filter, rates, source)),
    queryRegret(runner, perSession, source, 'ASC'),
    queryRegret(runner, perSession, source, 'DESC'),
    queryFacets(runner, source),
  ]);
  const totals = series.reduce((sum, point) => addSums(sum, point.sums), ZERO_SUMS);
  return {
    filter,
    bucket,
    totals: cacheFigures(totals),
    series: series.map(({ at, sums }) => {
      const { firstAt: _first, lastAt: _last, ...figures } = cacheFigures(sums);
      return { at, ...figures };
    }),
    causes,
    worstSessions,
    regret: { best, worst },
    unpricedModels: unpriced,
    facets,
  };
}

/** The filter part of a query (no bucket, no undefined keys), echoed in answers. */
export function filterOf(query: OverviewFilter): OverviewFilter {
  const filter: OverviewFilter = {};
  for (const name of [...SESSION_DIMENSIONS, 'model', 'from', 'to'] as const) {
    if (query[name] !== undefined) (filter as Record<string, unknown>)[name] = query[name];
  }
  return filter;
}

async function defaultBucket(runner: SqlRunner, usage: SqlPart): Promise<OverviewBucket> {
  const [row] = await runner.all(
    `${usage.sql} SELECT MIN(first_at) AS first_at, MAX(last_at) AS last_at FROM usage_rows`,
    usage.params,
  );
  const span = toNumber(row?.last_at) - toNumber(row?.first_at);
  return span <= HOURLY_SPAN_MS ? 'hour' : 'day';
}

/** Usage sums per hour or day: days are whole hours (UTC), so the hourly rows add up to them. */
async function querySeries(runner: SqlRunner, usage: SqlPart, bucket: OverviewBucket) {
  const bucketAt = bucket === 'hour' ? 'hour_at' : hourOf(runner.dialect, 'hour_at', DAY_MS);
  const rows = await runner.all(
    `${usage.sql}
     SELECT ${bucketAt} AS bucket, SUM(requests) AS requests, ${ROLLUP_SUMS}, MIN(first_at) AS first_at, MAX(last_at) AS last_at
     FROM usage_rows GROUP BY ${bucketAt} ORDER BY ${bucketAt}`,
    usage.params,
  );
  return rows.map((row) => ({ at: toNumber(row.bucket), sums: sumsFromRow(row) }));
}

/** `losses`: `sessionLossRows` for the filter. */
async function queryWorstSessions(runner: SqlRunner, losses: SqlPart): Promise<SessionLoss[]> {
  const rows = await runner.all(
    `${losses.sql}
     SELECT session_id, breaks, missed_tokens, lost_usd FROM session_losses
     ORDER BY lost_usd DESC, missed_tokens DESC, session_id LIMIT 10`,
    losses.params,
  );
  const labels = await labelsOf(
    runner,
    rows.map((row) => String(row.session_id)),
  );
  return rows.map((row) => ({
    sessionId: String(row.session_id),
    ...(labels.get(String(row.session_id)) ?? NO_LABELS),
    breaks: toNumber(row.breaks),
    missedTokens: toNumber(row.missed_tokens),
    lostUsd: toNumber(row.lost_usd),
  }));
}

/**
 * Sessions whose oracle cost is known, by cost ÷ oracle − 1, lowest (`ASC`) or highest (`DESC`)
 * first. `perSession`: `sessionUsageRows` for the filter.
 */
async function queryRegret(
  runner: SqlRunner,
  perSession: SqlPart,
  source: OverviewSource,
  order: 'ASC' | 'DESC',
): Promise<SessionRegret[]> {
  const rows = await runner.all(
    `${perSession.sql}
     SELECT s.session_id, ${LABEL_COLUMNS}, s.oracle_cost_usd, spent.cost_usd
     FROM session_usage spent JOIN ${startedTable(source)} s ON s.session_id = spent.session_id
     WHERE s.oracle_cost_usd > 0
     ORDER BY spent.cost_usd / s.oracle_cost_usd ${order}, s.session_id LIMIT 5`,
    perSession.params,
  );
  return rows.map((row) => {
    const costUsd = toNumber(row.cost_usd);
    const oracleCostUsd = toNumber(row.oracle_cost_usd);
    return {
      sessionId: String(row.session_id),
      ...labelValues(row),
      costUsd,
      oracleCostUsd,
      regret: costUsd / oracleCostUsd - 1,
    };
  });
}

async function queryFacets(runner: SqlRunner, source: OverviewSource): Promise<OverviewFacets> {
  const names = [...SESSION_DIMENSIONS, 'model'] as const;
  if (source === 'rollup') {
    const rows = await runner.all('SELECT dimension, value FROM overview_facets ORDER BY dimension, value', []);
    const facets = Object.fromEntries(names.map((name) => [name, [] as string[]])) as OverviewFacets;
    for (const row of rows) {
      const list = facets[String(row.dimension) as keyof OverviewFacets];
      if (list && list.length < FACET_LIMIT) list.push(String(row.value));
    }
    return facets;
  }
  const lists = await Promise.all(
    names.map((name) =>
      runner.all(
        `SELECT DISTINCT ${name} AS value FROM events
         WHERE type = 'session.started' AND ${name} IS NOT NULL ORDER BY ${name} LIMIT ${FACET_LIMIT}`,
        [],
      ),
    ),
  );
  return Object.fromEntries(
    names.map((name, index) => [name, (lists[index] ?? []).map((row) => String(row.value))]),
  ) as OverviewFacets;
}
