import { findPrice } from '../cache/pricing.js';
import { isProviderId, PROVIDER_IDS, type ProviderId } from '../providers/provider-id.js';
import type { OverviewSource } from './overview.js';
import type { SqlRunner } from './sql-runner.js';

/** USD lost per missed token of one model: its input price minus its cache-read price. */
export interface MissRate {
  model: string;
  perToken: number;
}

/**
 * What a missed token cost, per model that sent requests: the input rate minus the cache-read
 * rate of the price table. The provider is the one sessions of that model named in
 * `session.started`; for a model no session named, the first provider whose table prices it.
 * Models with no price row are returned apart (their losses are unknown, counted as 0).
 */
export async function missRates(
  runner: SqlRunner,
  source: OverviewSource = 'rollup',
): Promise<{ rates: MissRate[]; unpriced: string[] }> {
  const named = await runner.all(
    source === 'rollup'
      ? 'SELECT model, MIN(provider) AS provider FROM overview_sessions WHERE model IS NOT NULL GROUP BY model'
      : `SELECT model, MIN(provider) AS provider FROM events
         WHERE type = 'session.started' AND model IS NOT NULL GROUP BY model`,
    [],
  );
  const used = await runner.all(
    source === 'rollup'
      ? 'SELECT DISTINCT model FROM overview_usage'
      : `SELECT DISTINCT model FROM events WHERE type = 'usage.recorded' AND model IS NOT NULL`,
    [],
  );
  const providerOf = new Map(named.map((row) => [String(row.model), row.provider === null ? null : String(row.provider)]));
  const rates: MissRate[] = [];
  const unpriced: string[] = [];
  for (const model of new Set([...providerOf.keys(), ...used.map((row) => String(row.model))])) {
    const perToken = perTokenLoss(model, providerOf.get(model) ?? null);
    if (perToken === null) unpriced.push(model);
    else rates.push({ model, perToken });
  }
  return { rates, unpriced: unpriced.sort() };
}

function perTokenLoss(model: string, provider: string | null): number | null {
  const candidates: readonly ProviderId[] = provider !== null && isProviderId(provider) ? [provider] : PROVIDER_IDS;
  for (const candidate of candidates) {
    const row = findPrice(candidate, model);
    if (row) return Math.max(0, row.inputPerMTok - row.cacheReadPerMTok) / 1_000_000;
  }
  return null;
}

/**
 * `rates(model, per_token)` as a CTE body with its parameters (a query that yields no row
 * when there are no rates): both dialects take `CAST(? AS ...)` for typed parameters.
 */
export function ratesTable(rates: readonly MissRate[]): { sql: string; params: unknown[] } {
  if (rates.length === 0) {
    return { sql: 'SELECT CAST(NULL AS TEXT) AS model, CAST(0 AS DOUBLE PRECISION) AS per_token WHERE 1 = 0', params: [] };
  }
  return {
    sql: rates.map(() => 'SELECT CAST(? AS TEXT) AS model, CAST(? AS DOUBLE PRECISION) AS per_token').join(' UNION ALL '),
    params: rates.flatMap((rate) => [rate.model, rate.perToken]),
  };
}
