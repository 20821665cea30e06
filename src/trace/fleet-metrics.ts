import { ratio } from './analytics.js';
import { missRates } from './miss-rates.js';
import type { OverviewSource } from './overview.js';
import { ROLLUP_SUMS } from './overview-rollup-schema.js';
import { breakRows, usageRows } from './overview-rows.js';
import { startedTable } from './overview-sql.js';
import { type SqlRunner, toNumber } from './sql-runner.js';

/** A metric as both exports name it: Prometheus (`cachet_..._total`) and OpenTelemetry (`cachet.*`). */
export interface MetricDefinition {
  prometheus: string;
  otel: string;
  /** `counter` only grows while events are added; `gauge` may go down (ratios, savings). */
  kind: 'counter' | 'gauge';
  unit: string;
  help: string;
}

export interface MetricSample {
  metric: MetricDefinition;
  labels: Record<string, string>;
  value: number;
}

const define = (
  prometheus: string,
  otel: string,
  kind: MetricDefinition['kind'],
  unit: string,
  help: string,
): MetricDefinition => ({
  prometheus,
  otel,
  kind,
  unit,
  help,
});

/** Every metric Cachet exports, labelled by `provider` and `model` (breaks also by `cause`). */
export const FLEET_METRICS = {
  requests: define(
    'cachet_requests_total',
    'cachet.requests',
    'counter',
    '{request}',
    'Requests recorded (usage.recorded events).',
  ),
  tokens: define(
    'cachet_tokens_total',
    'cachet.tokens',
    'counter',
    '{token}',
    'Tokens by kind: uncached_input, cache_read, cache_write_5m, cache_write_1h, output.',
  ),
  cost: define('cachet_cost_usd_total', 'cachet.cost', 'counter', 'USD', 'What the requests cost, at the price table.'),
  uncachedCost: define(
    'cachet_uncached_cost_usd_total',
    'cachet.cost.uncached',
    'counter',
    'USD',
    'What the same requests would have cost with no cache.',
  ),
  saved: define(
    'cachet_saved_usd',
    'cachet.saved',
    'gauge',
    'USD',
    'Uncached cost minus cost (negative when writes cost more than reads saved).',
  ),
  hitRate: define('cachet_cache_hit_ratio', 'cachet.cache.hit_ratio', 'gauge', '1', 'Cache-read tokens ÷ all input tokens.'),
  writeShare: define(
    'cachet_cache_write_ratio',
    'cachet.cache.write_ratio',
    'gauge',
    '1',
    'Cache-write tokens ÷ all input tokens.',
  ),
  breaks: define('cachet_cache_breaks_total', 'cachet.cache.breaks', 'counter', '{break}', 'Cache breaks by cause.'),
  missedTokens: define(
    'cachet_cache_missed_tokens_total',
    'cachet.cache.missed_tokens',
    'counter',
    '{token}',
    'Tokens that could have been read from cache and were not, by cause.',
  ),
  lost: define(
    'cachet_cache_miss_lost_usd_total',
    'cachet.cache.miss_lost',
    'counter',
    'USD',
    'Money lost to cache misses (missed tokens × input − read rate), by cause.',
  ),
} as const;

const TOKEN_KINDS = ['uncached_input', 'cache_read', 'cache_write_5m', 'cache_write_1h', 'output'] as const;

/**
 * The store's figures as metric samples, summed in SQL per provider and model: a usage row's
 * provider is its session's (`session.started`), `unknown` when the session did not say.
 */
export async function queryFleetMetrics(runner: SqlRunner, source: OverviewSource = 'rollup'): Promise<MetricSample[]> {
  const rows = usageRows(runner.dialect, {}, source);
  const usage = await runner.all(
    `${rows.sql}
     SELECT COALESCE(s.provider, 'unknown') AS provider, u.model, SUM(u.requests) AS requests,
       ${ROLLUP_SUMS.replaceAll('SUM(', 'SUM(u.')}
     FROM usage_rows u LEFT JOIN ${startedTable(source)} s ON s.session_id = u.session_id
     GROUP BY COALESCE(s.provider, 'unknown'), u.model ORDER BY 1, 2`,
    rows.params,
  );
  const priced = breakRows(runner.dialect, {}, (await missRates(runner, source)).rates, source);
  const breaks = await runner.all(
    `${priced.sql}
     SELECT COALESCE(s.provider, 'unknown') AS provider, COALESCE(b.model, 'unknown') AS model, b.cause,
       SUM(b.breaks) AS breaks, SUM(b.missed_tokens) AS missed_tokens, SUM(b.lost_usd) AS lost_usd
     FROM break_rows b LEFT JOIN ${startedTable(source)} s ON s.session_id = b.session_id
     GROUP BY COALESCE(s.provider, 'unknown'), COALESCE(b.model, 'unknown'), b.cause ORDER BY 1, 2, 3`,
    priced.params,
  );
  const samples: MetricSample[] = [];
  const add = (metric: MetricDefinition, labels: Record<string, string>, value: number) =>
    samples.push({ metric, labels, value });
  for (const row of usage) {
    const labels = { provider: String(row.provider), model: String(row.model) };
    const tokens = {
      uncached_input: toNumber(row.uncached_input),
      cache_read: toNumber(row.cache_read),
      cache_write_5m: toNumber(row.cache_write_5m),
      cache_write_1h: toNumber(row.cache_write_1h),
      output: toNumber(row.output),
    };
    const input = tokens.uncached_input + tokens.cache_read + tokens.cache_write_5m + tokens.cache_write_1h;
    add(FLEET_METRICS.requests, labels, toNumber(row.requests));
    for (const kind of TOKEN_KINDS) add(FLEET_METRICS.tokens, { ...labels, kind }, tokens[kind]);
    add(FLEET_METRICS.cost, labels, toNumber(row.cost_usd));
    add(FLEET_METRICS.uncachedCost, labels, toNumber(row.uncached_cost_usd));
    add(FLEET_METRICS.saved, labels, toNumber(row.uncached_cost_usd) - toNumber(row.cost_usd));
    add(FLEET_METRICS.hitRate, labels, ratio(tokens.cache_read, input));
    add(FLEET_METRICS.writeShare, labels, ratio(tokens.cache_write_5m + tokens.cache_write_1h, input));
  }
  for (const row of breaks) {
    const labels = { provider: String(row.provider), model: String(row.model), cause: String(row.cause) };
    add(FLEET_METRICS.breaks, labels, toNumber(row.breaks));
    add(FLEET_METRICS.missedTokens, labels, toNumber(row.missed_tokens));
    add(FLEET_METRICS.lost, labels, toNumber(row.lost_usd));
  }
  return samples;
}
