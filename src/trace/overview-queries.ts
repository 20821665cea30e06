import type { CacheBreakCause } from '../events/catalog.js';
import { addSums, cacheFigures, ZERO_SUMS } from './analytics.js';
import { type MissRate, missRates } from './miss-rates.js';
import {
  type BreakExample,
  type MissCauseLoss,
  type OverviewBucket,
  type OverviewFacets,
  type OverviewFilter,
  type OverviewQuery,
  type OverviewReport,
  SESSION_DIMENSIONS,
  type SessionLoss,
  type SessionRegret,
} from './overview.js';
import {
  bucketExpression,
  joinParts,
  LABEL_COLUMNS,
  labelsOf,
  labelValues,
  NO_LABELS,
  pricedBreaks,
  sessionRestriction,
  timeRestriction,
  usageConditions,
} from './overview-sql.js';
import { sumsFromRow, USAGE_SUM_COLUMNS } from './sql-conditions.js';
import { type SqlRunner, toNumber } from './sql-runner.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Up to this span the series is hourly by default, beyond it daily. */
const HOURLY_SPAN_MS = 3 * DAY_MS;

/**
 * The overview across sessions: spend, spend without cache, savings, hit rate and write share
 * per time bucket; miss causes ranked by money lost with example breaks; the sessions that lost
 * most; best and worst regret where the oracle is known; and the filter values. Every sum and
 * ranking runs in SQL (the same statements on SQLite and PostgreSQL).
 */
export async function queryOverview(runner: SqlRunner, query: OverviewQuery = {}): Promise<OverviewReport> {
  const filter = filterOf(query);
  const bucket = query.bucket ?? (await defaultBucket(runner, filter));
  const { rates, unpriced } = await missRates(runner);
  const series = await querySeries(runner, filter, bucket);
  const totals = series.reduce((sum, point) => addSums(sum, point.sums), ZERO_SUMS);
  const [causes, worstSessions, best, worst, facets] = await Promise.all([
    queryCauses(runner, filter, rates),
    queryWorstSessions(runner, filter, rates),
    queryRegret(runner, filter, 'ASC'),
    queryRegret(runner, filter, 'DESC'),
    queryFacets(runner),
  ]);
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

async function defaultBucket(runner: SqlRunner, filter: OverviewFilter): Promise<OverviewBucket> {
  const conditions = usageConditions(filter);
  const [row] = await runner.all(
    `SELECT MIN(at) AS first_at, MAX(at) AS last_at FROM events WHERE type = 'usage.recorded'${conditions.sql}`,
    conditions.params,
  );
  const span = toNumber(row?.last_at) - toNumber(row?.first_at);
  return span <= HOURLY_SPAN_MS ? 'hour' : 'day';
}

async function querySeries(runner: SqlRunner, filter: OverviewFilter, bucket: OverviewBucket) {
  const conditions = usageConditions(filter);
  const bucketAt = bucketExpression(runner.dialect, 'at', bucket === 'hour' ? HOUR_MS : DAY_MS);
  const rows = await runner.all(
    `SELECT ${bucketAt} AS bucket, COUNT(*) AS requests, ${USAGE_SUM_COLUMNS}, MIN(at) AS first_at, MAX(at) AS last_at
     FROM events WHERE type = 'usage.recorded'${conditions.sql}
     GROUP BY ${bucketAt} ORDER BY ${bucketAt}`,
    conditions.params,
  );
  return rows.map((row) => ({ at: toNumber(row.bucket), sums: sumsFromRow(row) }));
}

async function queryCauses(runner: SqlRunner, filter: OverviewFilter, rates: readonly MissRate[]): Promise<MissCauseLoss[]> {
  const priced = pricedBreaks(filter, rates);
  const [totals, examples] = await Promise.all([
    runner.all(
      `${priced.sql}
       SELECT cause, COUNT(*) AS breaks, SUM(missed_tokens) AS missed_tokens, SUM(lost_usd) AS lost_usd
       FROM priced GROUP BY cause ORDER BY SUM(lost_usd) DESC, COUNT(*) DESC, cause`,
      priced.params,
    ),
    runner.all(
      `${priced.sql}
       SELECT cause, session_id, at, turn, step, missed_tokens, lost_usd FROM (
         SELECT priced.*, ROW_NUMBER() OVER (
           PARTITION BY cause ORDER BY lost_usd DESC, missed_tokens DESC, session_id, seq) AS position
         FROM priced) ranked
       WHERE position <= 3 ORDER BY cause, position`,
      priced.params,
    ),
  ]);
  const byCause = new Map<string, BreakExample[]>();
  for (const row of examples) {
    const list = byCause.get(String(row.cause)) ?? [];
    list.push({
      sessionId: String(row.session_id),
      at: toNumber(row.at),
      turn: toNumber(row.turn),
      step: toNumber(row.step),
      missedTokens: toNumber(row.missed_tokens),
      lostUsd: toNumber(row.lost_usd),
    });
    byCause.set(String(row.cause), list);
  }
  return totals.map((row) => ({
    cause: String(row.cause) as CacheBreakCause,
    breaks: toNumber(row.breaks),
    missedTokens: toNumber(row.missed_tokens),
    lostUsd: toNumber(row.lost_usd),
    examples: byCause.get(String(row.cause)) ?? [],
  }));
}

async function queryWorstSessions(runner: SqlRunner, filter: OverviewFilter, rates: readonly MissRate[]): Promise<SessionLoss[]> {
  const priced = pricedBreaks(filter, rates);
  const rows = await runner.all(
    `${priced.sql}
     SELECT session_id, COUNT(*) AS breaks, SUM(missed_tokens) AS missed_tokens, SUM(lost_usd) AS lost_usd
     FROM priced GROUP BY session_id
     ORDER BY SUM(lost_usd) DESC, SUM(missed_tokens) DESC, session_id LIMIT 10`,
    priced.params,
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

/** Sessions whose oracle cost is known, by cost ÷ oracle − 1, lowest (`ASC`) or highest (`DESC`) first. */
async function queryRegret(runner: SqlRunner, filter: OverviewFilter, order: 'ASC' | 'DESC'): Promise<SessionRegret[]> {
  const conditions = joinParts([
    sessionRestriction(filter, 's.session_id'),
    timeRestriction(filter, 'u.at'),
    filter.model === undefined ? { sql: '', params: [] } : { sql: ' AND u.model = ?', params: [filter.model] },
  ]);
  const rows = await runner.all(
    `SELECT s.session_id, ${LABEL_COLUMNS}, s.oracle_cost_usd, SUM(u.cost_usd) AS cost_usd
     FROM events s JOIN events u ON u.session_id = s.session_id AND u.type = 'usage.recorded'
     WHERE s.type = 'session.started' AND s.oracle_cost_usd > 0${conditions.sql}
     GROUP BY s.session_id, ${LABEL_COLUMNS.replace(' AS started_model', '')}, s.oracle_cost_usd
     ORDER BY SUM(u.cost_usd) / s.oracle_cost_usd ${order}, s.session_id LIMIT 5`,
    conditions.params,
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

async function queryFacets(runner: SqlRunner): Promise<OverviewFacets> {
  const names = [...SESSION_DIMENSIONS, 'model'] as const;
  const lists = await Promise.all(
    names.map((name) =>
      runner.all(
        `SELECT DISTINCT ${name} AS value FROM events
         WHERE type = 'session.started' AND ${name} IS NOT NULL ORDER BY ${name} LIMIT 200`,
        [],
      ),
    ),
  );
  return Object.fromEntries(
    names.map((name, index) => [name, (lists[index] ?? []).map((row) => String(row.value))]),
  ) as OverviewFacets;
}
