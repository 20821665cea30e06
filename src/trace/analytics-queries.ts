import type { CacheBreakCause, SkillLoadReason } from '../events/catalog.js';
import { addSums, cacheFigures, healthyWriteShareLimit, isHealthyWriteShare, type UsageSums, ZERO_SUMS } from './analytics.js';
import { addCondition, sessionAndTimeConditions, sumsFromRow, USAGE_SUM_COLUMNS } from './sql-conditions.js';
import { type SqlRunner, toNumber } from './sql-runner.js';
import type { BreakCauseCount, CacheEffectivenessReport, SkillsReport, TraceFilter } from './trace-store.js';

/**
 * WHERE clauses for a filter. Events without a model column (breaks, skill loads) match a
 * model filter through their session: a session belongs to every model it sent requests to.
 */
function filterClauses(filter: TraceFilter, modelColumn: boolean): { sql: string; params: unknown[] } {
  const conditions = sessionAndTimeConditions(filter);
  if (filter.model !== undefined) {
    const clause = modelColumn
      ? 'model = ?'
      : `session_id IN (SELECT DISTINCT session_id FROM events WHERE type = 'usage.recorded' AND model = ?)`;
    addCondition(conditions, clause, filter.model);
  }
  return { sql: conditions.clauses.map((clause) => ` AND ${clause}`).join(''), params: conditions.params };
}

/**
 * Cache effectiveness over the `usage.recorded` events matching `filter`: overall, per
 * session (with the 1/N write-share health check) and per model, plus the break histogram.
 * Sums happen in SQL; ratios are computed from the sums so every level is consistent.
 */
export async function queryCacheEffectiveness(runner: SqlRunner, filter: TraceFilter = {}): Promise<CacheEffectivenessReport> {
  const clauses = filterClauses(filter, true);
  const rows = await runner.all(
    `SELECT session_id, model,
       COUNT(*) AS requests,
       ${USAGE_SUM_COLUMNS},
       MIN(at) AS first_at,
       MAX(at) AS last_at
     FROM events WHERE type = 'usage.recorded'${clauses.sql}
     GROUP BY session_id, model
     ORDER BY session_id, model`,
    clauses.params,
  );
  let overall = ZERO_SUMS;
  const bySession = new Map<string, { sums: UsageSums; models: string[] }>();
  const byModel = new Map<string, UsageSums>();
  for (const row of rows) {
    const sums = sumsFromRow(row);
    const sessionId = String(row.session_id);
    const model = String(row.model);
    overall = addSums(overall, sums);
    const session = bySession.get(sessionId) ?? { sums: ZERO_SUMS, models: [] };
    bySession.set(sessionId, { sums: addSums(session.sums, sums), models: [...session.models, model] });
    byModel.set(model, addSums(byModel.get(model) ?? ZERO_SUMS, sums));
  }
  return {
    filter,
    overall: cacheFigures(overall),
    sessions: [...bySession].map(([sessionId, { sums, models }]) => {
      const figures = cacheFigures(sums);
      return {
        sessionId,
        models,
        ...figures,
        healthyWriteShareLimit: healthyWriteShareLimit(sums.requests),
        healthy: isHealthyWriteShare(figures.cacheWriteShare, sums.requests),
      };
    }),
    models: [...byModel].map(([model, sums]) => ({ model, ...cacheFigures(sums) })),
    breaks: await queryBreakCauses(runner, filter),
  };
}

/** How many `cache.break` events of each cause, and the tokens they cost, most frequent first. */
export async function queryBreakCauses(runner: SqlRunner, filter: TraceFilter = {}): Promise<BreakCauseCount[]> {
  const clauses = filterClauses(filter, false);
  const rows = await runner.all(
    `SELECT cause, COUNT(*) AS breaks, COALESCE(SUM(missed_tokens), 0) AS missed_tokens
     FROM events WHERE type = 'cache.break'${clauses.sql}
     GROUP BY cause ORDER BY COUNT(*) DESC, cause`,
    clauses.params,
  );
  return rows.map((row) => ({
    cause: row.cause as CacheBreakCause,
    count: toNumber(row.breaks),
    missedTokens: toNumber(row.missed_tokens),
  }));
}

/** Skill loads rolled up by `load_reason` (always, on_demand, auto_suggested) and by skill. */
export async function querySkills(runner: SqlRunner, filter: TraceFilter = {}): Promise<SkillsReport> {
  const clauses = filterClauses(filter, false);
  const reasonRows = await runner.all(
    `SELECT load_reason, COUNT(*) AS loads, COALESCE(SUM(load_tokens), 0) AS load_tokens,
       COUNT(DISTINCT skill_id) AS distinct_skills, COUNT(DISTINCT session_id) AS sessions
     FROM events WHERE type = 'skill.loaded'${clauses.sql}
     GROUP BY load_reason ORDER BY load_reason`,
    clauses.params,
  );
  const skillRows = await runner.all(
    `SELECT skill_id, load_reason, COUNT(*) AS loads, COALESCE(SUM(load_tokens), 0) AS load_tokens
     FROM events WHERE type = 'skill.loaded'${clauses.sql}
     GROUP BY skill_id, load_reason ORDER BY skill_id, load_reason`,
    clauses.params,
  );
  return {
    filter,
    byReason: reasonRows.map((row) => ({
      loadReason: row.load_reason as SkillLoadReason,
      loads: toNumber(row.loads),
      loadTokens: toNumber(row.load_tokens),
      distinctSkills: toNumber(row.distinct_skills),
      sessions: toNumber(row.sessions),
    })),
    bySkill: skillRows.map((row) => ({
      skillId: String(row.skill_id),
      loadReason: row.load_reason as SkillLoadReason,
      loads: toNumber(row.loads),
      loadTokens: toNumber(row.load_tokens),
    })),
  };
}
