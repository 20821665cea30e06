import type { CacheBreakCause, CachetEvent, EventType } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import type { ProviderCacheMissReason } from '../model/usage.js';
import { ratio, tokenBuckets } from './analytics.js';
import { addCondition, sessionAndTimeConditions, USAGE_SUM_COLUMNS } from './sql-conditions.js';
import { type SqlRow, type SqlRunner, toNullableString, toNumber } from './sql-runner.js';
import type { EventQuery, RequestBreak, RequestSummary, SessionSummary } from './trace-store.js';

/** The `session.started` labels a session summary carries beside its provider and strategy. */
const SESSION_LABELS = ['source', 'client', 'run', 'workload', 'project'] as const;

/** Most events one `events()` call returns (and the default): page with `afterSeq` beyond it. */
export const MAX_EVENT_LIMIT = 10_000;

/** Read queries shared by both backends: portable SQL, `?` placeholders. */
export async function queryEvents(runner: SqlRunner, query: EventQuery = {}): Promise<CachetEvent[]> {
  const limit = query.limit ?? MAX_EVENT_LIMIT;
  // SQLite reads `LIMIT -1` as "no limit": anything outside 1..MAX would bypass the cap.
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EVENT_LIMIT) {
    throw new ValidationError('events.limit', `an integer from 1 to ${MAX_EVENT_LIMIT}`, String(limit));
  }
  const conditions = sessionAndTimeConditions(query);
  if (query.types && query.types.length > 0) {
    addCondition(conditions, `type IN (${query.types.map(() => '?').join(', ')})`, ...query.types);
  }
  if (query.afterSeq !== undefined) addCondition(conditions, 'seq > ?', query.afterSeq);
  const { clauses, params } = conditions;
  const rows = await runner.all(
    `SELECT session_id, seq, type, at, payload FROM events
     ${clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : ''}
     ORDER BY session_id, seq LIMIT ?`,
    [...params, limit],
  );
  return rows.map(rowToEvent);
}

export function rowToEvent(row: SqlRow): CachetEvent {
  const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
  return {
    type: row.type as EventType,
    sessionId: String(row.session_id),
    seq: toNumber(row.seq),
    at: toNumber(row.at),
    payload,
  } as CachetEvent;
}

export async function querySessions(
  runner: SqlRunner,
  options: { limit?: number; offset?: number; sessionId?: string } = {},
): Promise<SessionSummary[]> {
  const only = options.sessionId === undefined ? '' : 'WHERE session_id = ?';
  const rows = await runner.all(
    `SELECT session_id,
       MIN(at) AS first_at,
       MAX(at) AS last_at,
       COUNT(*) AS events,
       SUM(CASE WHEN type = 'usage.recorded' THEN 1 ELSE 0 END) AS requests,
       SUM(CASE WHEN type = 'cache.break' THEN 1 ELSE 0 END) AS cache_breaks,
       MAX(CASE WHEN type = 'session.started' THEN model END) AS started_model,
       MIN(CASE WHEN type = 'usage.recorded' THEN model END) AS usage_model,
       MAX(CASE WHEN type = 'session.started' THEN provider END) AS provider,
       MAX(CASE WHEN type = 'session.started' THEN strategy END) AS strategy,
       ${SESSION_LABELS.map((name) => `MAX(CASE WHEN type = 'session.started' THEN ${name} END) AS ${name}`).join(',\n       ')},
       ${USAGE_SUM_COLUMNS}
     FROM events ${only}
     GROUP BY session_id
     ORDER BY MAX(at) DESC, MAX(id) DESC
     LIMIT ? OFFSET ?`,
    [...(options.sessionId === undefined ? [] : [options.sessionId]), options.limit ?? 1000, options.offset ?? 0],
  );
  return rows.map((row) => {
    const tokens = bucketsFromRow(row);
    return {
      sessionId: String(row.session_id),
      model: toNullableString(row.started_model) ?? toNullableString(row.usage_model),
      provider: toNullableString(row.provider),
      strategy: toNullableString(row.strategy),
      source: toNullableString(row.source),
      client: toNullableString(row.client),
      run: toNullableString(row.run),
      workload: toNullableString(row.workload),
      project: toNullableString(row.project),
      firstAt: toNumber(row.first_at),
      lastAt: toNumber(row.last_at),
      events: toNumber(row.events),
      requests: toNumber(row.requests),
      cacheBreaks: toNumber(row.cache_breaks),
      tokens,
      costUsd: toNumber(row.cost_usd),
      uncachedCostUsd: toNumber(row.uncached_cost_usd),
      hitRate: ratio(tokens.cacheRead, tokens.totalInput),
    };
  });
}

export async function queryRequests(runner: SqlRunner, sessionId: string): Promise<RequestSummary[]> {
  const usageRows = await runner.all(
    `SELECT seq, at, turn, step, model,
       uncached_input_tokens AS uncached_input, cache_read_tokens AS cache_read,
       cache_write_5m_tokens AS cache_write_5m, cache_write_1h_tokens AS cache_write_1h,
       output_tokens AS output, cost_usd, uncached_cost_usd
     FROM events WHERE session_id = ? AND type = 'usage.recorded' ORDER BY seq`,
    [sessionId],
  );
  const breakRows = await runner.all(
    `SELECT turn, step, cause, missed_tokens, payload FROM events
     WHERE session_id = ? AND type = 'cache.break' ORDER BY seq`,
    [sessionId],
  );
  const breaksByRequest = new Map<string, RequestBreak[]>();
  for (const row of breakRows) {
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as {
      zone?: string | null;
      path?: string | null;
      serverCause?: ProviderCacheMissReason | null;
    };
    const key = `${toNumber(row.turn)}:${toNumber(row.step)}`;
    const list = breaksByRequest.get(key) ?? [];
    list.push({
      cause: row.cause as CacheBreakCause,
      zone: payload.zone ?? null,
      path: payload.path ?? null,
      missedTokens: toNumber(row.missed_tokens),
      serverCause: payload.serverCause ?? null,
    });
    breaksByRequest.set(key, list);
  }
  return usageRows.map((row, index) => {
    const tokens = bucketsFromRow(row);
    const turn = toNumber(row.turn);
    const step = toNumber(row.step);
    return {
      sessionId,
      index,
      seq: toNumber(row.seq),
      at: toNumber(row.at),
      turn,
      step,
      model: String(row.model),
      tokens,
      hitRate: ratio(tokens.cacheRead, tokens.totalInput),
      costUsd: toNumber(row.cost_usd),
      uncachedCostUsd: toNumber(row.uncached_cost_usd),
      breaks: breaksByRequest.get(`${turn}:${step}`) ?? [],
    };
  });
}

export function bucketsFromRow(row: SqlRow) {
  return tokenBuckets({
    uncachedInput: toNumber(row.uncached_input),
    cacheRead: toNumber(row.cache_read),
    cacheWrite5m: toNumber(row.cache_write_5m),
    cacheWrite1h: toNumber(row.cache_write_1h),
    output: toNumber(row.output),
  });
}
