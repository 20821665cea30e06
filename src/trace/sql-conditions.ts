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
 * Usage sums under the names `bucketsFromRow` reads. Shared by the session list
 * and the cache-effectiveness report so both add up the same columns the same way.
 */
export const USAGE_SUM_COLUMNS = `COALESCE(SUM(uncached_input_tokens), 0) AS uncached_input,
       COALESCE(SUM(cache_read_tokens), 0) AS cache_read,
       COALESCE(SUM(cache_write_5m_tokens), 0) AS cache_write_5m,
       COALESCE(SUM(cache_write_1h_tokens), 0) AS cache_write_1h,
       COALESCE(SUM(output_tokens), 0) AS output,
       COALESCE(SUM(cost_usd), 0) AS cost_usd,
       COALESCE(SUM(uncached_cost_usd), 0) AS uncached_cost_usd`;
