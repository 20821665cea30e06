import type { UsageSums } from './analytics.js';
import { type SqlRow, toNullableNumber, toNumber } from './sql-runner.js';
/** WHERE conditions with their `?` parameters, in matching order. */
export interface SqlConditions {
  clauses: string[];
  params: unknown[];
}

/**
 * The conditions every trace query filters on: one session, and an inclusive time window
 * (epoch ms). Callers push their own conditions after these.
 */
export function sessionAndTimeConditions(filter: { sessionId?: string; from?: number; to?: number }): SqlConditions {
  const conditions: SqlConditions = { clauses: [], params: [] };
  if (filter.sessionId !== undefined) addCondition(conditions, 'session_id = ?', filter.sessionId);
  if (filter.from !== undefined) addCondition(conditions, 'at >= ?', filter.from);
  if (filter.to !== undefined) addCondition(conditions, 'at <= ?', filter.to);
  return conditions;
}

export function addCondition(conditions: SqlConditions, clause: string, ...params: unknown[]): void {
  conditions.clauses.push(clause);
  conditions.params.push(...params);
}

/**
 * Usage sums under the names `sumsFromRow` reads. Shared by the session list
 * and the cache-effectiveness report so both add up the same columns the same way.
 */
export const USAGE_SUM_COLUMNS = `COALESCE(SUM(uncached_input_tokens), 0) AS uncached_input,
       COALESCE(SUM(cache_read_tokens), 0) AS cache_read,
       COALESCE(SUM(cache_write_5m_tokens), 0) AS cache_write_5m,
       COALESCE(SUM(cache_write_1h_tokens), 0) AS cache_write_1h,
       COALESCE(SUM(output_tokens), 0) AS output,
       COALESCE(SUM(cost_usd), 0) AS cost_usd,
       COALESCE(SUM(uncached_cost_usd), 0) AS uncached_cost_usd`;

/** A row of {@link USAGE_SUM_COLUMNS} (plus `requests`, `first_at`, `last_at`) as usage sums. */
export function sumsFromRow(row: SqlRow): UsageSums {
  return {
    requests: toNumber(row.requests),
    uncachedInput: toNumber(row.uncached_input),
    cacheRead: toNumber(row.cache_read),
    cacheWrite5m: toNumber(row.cache_write_5m),
    cacheWrite1h: toNumber(row.cache_write_1h),
    output: toNumber(row.output),
    costUsd: toNumber(row.cost_usd),
    uncachedCostUsd: toNumber(row.uncached_cost_usd),
    firstAt: toNullableNumber(row.first_at),
    lastAt: toNullableNumber(row.last_at),
  };
}
