import type { CacheBreakCause } from '../events/catalog.js';
import type { MissRate } from './miss-rates.js';
import type { BreakExample, MissCauseLoss, OverviewFilter, OverviewSource } from './overview.js';
import { breakTable } from './overview-rows.js';
import { joinParts, type SqlPart, sessionRestriction, timeRestriction } from './overview-sql.js';
import { type SqlRunner, toNullableString, toNumber } from './sql-runner.js';

/** Examples kept per cause. */
const EXAMPLES = 3;

export interface CauseQuery {
  filter: OverviewFilter;
  rates: readonly MissRate[];
  /** `break_rows` of `breakRows` for the same filter. */
  breaks: SqlPart;
  source: OverviewSource;
}

/**
 * Miss causes ranked by money lost (then breaks, then name), each with its costliest breaks.
 * A break's loss is its missed tokens × its model's rate, so within one cause and model the
 * costliest are those that missed most: the examples are the top 3 of each (cause, model)
 * pair, read in index order, then ranked by loss across models.
 */
export async function queryCauses(runner: SqlRunner, query: CauseQuery): Promise<MissCauseLoss[]> {
  const rows = await runner.all(
    `${query.breaks.sql}
     SELECT cause, model, SUM(breaks) AS breaks, SUM(missed_tokens) AS missed_tokens, SUM(lost_usd) AS lost_usd
     FROM break_rows GROUP BY cause, model`,
    query.breaks.params,
  );
  const byCause = new Map<string, { breaks: number; missedTokens: number; lostUsd: number }>();
  for (const row of rows) {
    const entry = byCause.get(String(row.cause)) ?? { breaks: 0, missedTokens: 0, lostUsd: 0 };
    entry.breaks += toNumber(row.breaks);
    entry.missedTokens += toNumber(row.missed_tokens);
    entry.lostUsd += toNumber(row.lost_usd);
    byCause.set(String(row.cause), entry);
  }
  const pairs = rows.map((row) => ({ cause: String(row.cause), model: toNullableString(row.model) }));
  const examples = await costliestBreaks(runner, query, pairs);
  return [...byCause]
    .map(([cause, totals]) => ({ cause: cause as CacheBreakCause, ...totals, examples: examples.get(cause) ?? [] }))
    .sort(
      (left, right) =>
        right.lostUsd - left.lostUsd ||
        right.breaks - left.breaks ||
        (left.cause < right.cause ? -1 : left.cause > right.cause ? 1 : 0),
    );
}

interface Candidate extends BreakExample {
  cause: string;
  seq: number;
}

async function costliestBreaks(
  runner: SqlRunner,
  query: CauseQuery,
  pairs: ReadonlyArray<{ cause: string; model: string | null }>,
): Promise<Map<string, BreakExample[]>> {
  const result = new Map<string, BreakExample[]>();
  if (pairs.length === 0) return result;
  // `|| ''` keeps the planner walking the costliest-first index (the label filter is checked per row, not used to seek).
  const restrict = joinParts([
    timeRestriction(query.filter, 'b.at'),
    sessionRestriction(query.filter, "b.session_id || ''", query.source),
  ]);
  const table = breakTable(runner.dialect, query.source);
  const selects = pairs.map((pair, index) => ({
    sql: `SELECT pair_${index}.*, ${index} AS pair FROM (SELECT b.session_id, b.seq, b.at, b.turn, b.step, b.cause, b.missed_tokens FROM ${table} b
      WHERE b.cause = ? AND ${pair.model === null ? 'b.model IS NULL' : 'b.model = ?'}${restrict.sql}
      ORDER BY b.missed_tokens DESC, b.session_id, b.seq LIMIT ${EXAMPLES}) pair_${index}`,
    params: [pair.cause, ...(pair.model === null ? [] : [pair.model]), ...restrict.params],
  }));
  const rows = await runner.all(
    selects.map((select) => select.sql).join('\n UNION ALL\n '),
    selects.flatMap((select) => select.params),
  );
  const rateOf = new Map(query.rates.map((rate) => [rate.model, rate.perToken]));
  const candidates: Candidate[] = rows.map((row) => {
    const pair = pairs[toNumber(row.pair)]!;
    const missedTokens = toNumber(row.missed_tokens);
    return {
      cause: String(row.cause),
      sessionId: String(row.session_id),
      seq: toNumber(row.seq),
      at: toNumber(row.at),
      turn: toNumber(row.turn),
      step: toNumber(row.step),
      missedTokens,
      lostUsd: missedTokens * (pair.model === null ? 0 : (rateOf.get(pair.model) ?? 0)),
    };
  });
  candidates.sort(
    (left, right) =>
      right.lostUsd - left.lostUsd ||
      right.missedTokens - left.missedTokens ||
      (left.sessionId < right.sessionId ? -1 : left.sessionId > right.sessionId ? 1 : left.seq - right.seq),
  );
  for (const { cause, seq: _seq, ...example } of candidates) {
    const list = result.get(cause) ?? [];
    if (list.length < EXAMPLES) list.push(example);
    result.set(cause, list);
  }
  return result;
}
