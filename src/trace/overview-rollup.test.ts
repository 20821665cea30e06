import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { queryFleetMetrics } from './fleet-metrics.js';
import { openTraceStore } from './open-trace-store.js';
import type { OverviewQuery, SessionListQuery } from './overview.js';
import { queryOverview } from './overview-queries.js';
import { querySessionList } from './session-list-queries.js';
import { type SqlRunner, toPostgresPlaceholders } from './sql-runner.js';
import { FLEET_T0, fleetEvents } from './test-support/fleet-events.js';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayPostgres } from './test-support/throwaway-postgres.js';
import type { TraceStore } from './trace-store.js';

const HOUR = 3_600_000;
const fleet = [...fleetEvents({ sessions: 24, requestsPerSession: 7, spacingMs: 23 * 60_000 })];

function event(type: string, sessionId: string, seq: number, at: number, payload: unknown): CachetEvent {
  return { type, sessionId, seq, at, payload } as CachetEvent;
}
function usage(sessionId: string, seq: number, at: number, turn: number, model: string): CachetEvent {
  const usage = {
    uncachedInputTokens: 100 + seq,
    cacheReadTokens: 900,
    cacheWrite5mTokens: 50,
    cacheWrite1hTokens: 7,
    outputTokens: 20,
    reasoningTokens: 0,
    raw: {},
  };
  return event('usage.recorded', sessionId, seq, at, { turn, step: 0, model, usage, costUsd: 0.0011, uncachedCostUsd: 0.003 });
}
function cacheBreak(sessionId: string, seq: number, at: number, turn: number, missedTokens: number): CachetEvent {
  const payload = { turn, step: 0, cause: 'clock', zone: 'system', path: 'system[0]', byteOffset: 0, before: null, after: null };
  return event('cache.break', sessionId, seq, at, { ...payload, missedTokens });
}

/**
 * Batches that arrive out of order, as a proxy or an import may write them: a break stored
 * before its request, a second request on the same turn with a model that sorts first (the
 * break's model becomes that one), a break whose request never comes, fractional times.
 */
const late = 'proxy/late/1';
const lateT0 = FLEET_T0 + 2 * HOUR - 90_000.25;
const batches: CachetEvent[][] = [
  [
    event('session.started', late, 0, lateT0, { model: 'gpt-5', provider: 'openai-responses', source: 'proxy', run: 'run-1' }),
    cacheBreak(late, 1, lateT0 + 1000.5, 2, 4000),
    usage(late, 2, lateT0 + 500, 1, 'gpt-5'),
  ],
  [usage(late, 3, lateT0 + 1000.5, 2, 'gpt-5'), cacheBreak(late, 4, lateT0 + 200_000, 9, 100)],
  [usage(late, 5, lateT0 + 1001, 2, 'claude-haiku-4-5'), cacheBreak(late, 6, lateT0 + 3 * HOUR, 3, 5000)],
  [usage(late, 7, lateT0 + 3 * HOUR, 3, 'claude-sonnet-4-5')],
];
for (let start = 0; start < fleet.length; start += 37) batches.push(fleet.slice(start, start + 37));

const QUERIES: OverviewQuery[] = [
  {},
  { bucket: 'day' },
  { source: 'simulation' },
  { model: 'claude-haiku-4-5' },
  { from: FLEET_T0 + 30 * 60_000 + 0.5, to: FLEET_T0 + 5 * HOUR - 1 },
  { from: FLEET_T0 + 2 * HOUR },
  { to: FLEET_T0 + 3 * HOUR + 17 },
  { from: FLEET_T0 + 2 * HOUR + 10, to: FLEET_T0 + 2 * HOUR + 50 * 60_000, model: 'claude-haiku-4-5' },
  { run: 'run-1', provider: 'anthropic', from: FLEET_T0 + HOUR / 2 },
];
const LISTS: SessionListQuery[] = [
  { limit: 500 },
  { sort: 'lost', groupBy: 'model', limit: 500, from: FLEET_T0 + 90 * 60_000 },
  { sort: 'regret', groupBy: 'workload', source: 'simulation', to: FLEET_T0 + 4 * HOUR + 1 },
];

/** Numbers rounded to 9 significant digits: the rollups add floats in another order than the events. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(9));
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]));
  return value;
}

function rollupMatchesEvents(runner: () => SqlRunner) {
  it.each(QUERIES.map((query) => [JSON.stringify(query), query] as const))('overview %s', async (_name, query) => {
    const fromRollup = await queryOverview(runner(), query);
    expect(fromRollup.totals.requests).toBeGreaterThan(0);
    expect(rounded(fromRollup)).toEqual(rounded(await queryOverview(runner(), query, 'events')));
  });
  it.each(LISTS.map((query) => [JSON.stringify(query), query] as const))('session list %s', async (_name, query) => {
    const fromRollup = await querySessionList(runner(), query);
    expect(fromRollup.sessions.length).toBeGreaterThan(0);
    expect(rounded(fromRollup)).toEqual(rounded(await querySessionList(runner(), query, 'events')));
  });
  it('metrics', async () => {
    expect(rounded(await queryFleetMetrics(runner()))).toEqual(rounded(await queryFleetMetrics(runner(), 'events')));
  });
  it('the session-grain rollups hold the sums of the events', async () => {
    await expectSessionRollupsEqualEvents(runner());
  });
  it('a break stored before its request is priced at the request model that sorts first', async () => {
    const rows = await runner().all('SELECT seq, model FROM overview_breaks WHERE session_id = ? ORDER BY seq', [late]);
    expect(rows.map((row) => [Number(row.seq), row.model])).toEqual([
      [1, 'claude-haiku-4-5'],
      [4, null],
      [6, 'claude-sonnet-4-5'],
    ]);
  });
}

/** Rows of a query as sorted JSON lines, numbers rounded (PostgreSQL returns BIGINT sums as strings). */
async function rowsOf(runner: SqlRunner, sql: string): Promise<string[]> {
  const rows = await runner.all(sql, []);
  return rows
    .map((row) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [
            key,
            typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? rounded(Number(value)) : rounded(value),
          ]),
        ),
      ),
    )
    .sort();
}

/** Each session-grain table (migration 6) against the same sums taken from the events. */
async function expectSessionRollupsEqualEvents(runner: SqlRunner): Promise<void> {
  const breakModel = `(SELECT MIN(u.model) FROM events u
    WHERE u.session_id = b.session_id AND u.type = 'usage.recorded' AND u.turn = b.turn AND u.step = b.step)`;
  const hour =
    runner.dialect === 'sqlite' ? 'CAST(b.at AS INTEGER) / 3600000 * 3600000' : 'CAST(FLOOR(b.at / 3600000) * 3600000 AS BIGINT)';
  const pairs: Array<[string, string]> = [
    [
      `SELECT session_id, requests, uncached_input, cache_read, cache_write_5m, cache_write_1h, output, cost_usd, uncached_cost_usd,
         first_at, last_at FROM overview_sessions WHERE requests > 0`,
      `SELECT session_id, COUNT(*) AS requests, SUM(uncached_input_tokens) AS uncached_input, SUM(cache_read_tokens) AS cache_read,
         SUM(cache_write_5m_tokens) AS cache_write_5m, SUM(cache_write_1h_tokens) AS cache_write_1h, SUM(output_tokens) AS output,
         SUM(cost_usd) AS cost_usd, SUM(uncached_cost_usd) AS uncached_cost_usd, MIN(at) AS first_at, MAX(at) AS last_at
       FROM events WHERE type = 'usage.recorded' GROUP BY session_id`,
    ],
    [
      'SELECT session_id, source, client, provider, strategy, run, workload, project, model, oracle_cost_usd FROM overview_sessions WHERE source IS NOT NULL OR model IS NOT NULL',
      `SELECT session_id, source, client, provider, strategy, run, workload, project, model, oracle_cost_usd FROM events WHERE type = 'session.started'`,
    ],
    [
      'SELECT session_id, model, breaks, missed_tokens FROM overview_session_losses',
      `SELECT session_id, COALESCE(model, '') AS model, COUNT(*) AS breaks, SUM(missed_tokens) AS missed_tokens
       FROM (SELECT b.session_id, COALESCE(b.missed_tokens, 0) AS missed_tokens, ${breakModel} AS model FROM events b
         WHERE b.type = 'cache.break' AND b.cause IS NOT NULL) x GROUP BY session_id, COALESCE(model, '')`,
    ],
    [
      'SELECT hour_at, model, cause, breaks, missed_tokens FROM overview_cause_sums WHERE breaks > 0',
      `SELECT hour_at, COALESCE(model, '') AS model, cause, COUNT(*) AS breaks, SUM(missed_tokens) AS missed_tokens
       FROM (SELECT ${hour} AS hour_at, b.cause, COALESCE(b.missed_tokens, 0) AS missed_tokens, ${breakModel} AS model FROM events b
         WHERE b.type = 'cache.break' AND b.cause IS NOT NULL) x GROUP BY hour_at, COALESCE(model, ''), cause`,
    ],
    [
      'SELECT dimension, value FROM overview_facets',
      ['source', 'client', 'provider', 'strategy', 'run', 'workload', 'project', 'model']
        .map(
          (name) =>
            `SELECT DISTINCT '${name}' AS dimension, ${name} AS value FROM events WHERE type = 'session.started' AND ${name} IS NOT NULL`,
        )
        .join(' UNION ALL '),
    ],
  ];
  for (const [rollup, events] of pairs) {
    const expected = await rowsOf(runner, events);
    expect(expected.length).toBeGreaterThan(0);
    expect(await rowsOf(runner, rollup)).toEqual(expected);
  }
  // Out-of-order batches shift the cause sums: rows that fell to 0 breaks are the only ones read with `breaks > 0` left out.
  const zero = await runner.all('SELECT COUNT(*) AS rows FROM overview_cause_sums WHERE breaks = 0 AND missed_tokens <> 0', []);
  expect(Number(zero[0]?.rows)).toBe(0);
}

async function load(store: TraceStore): Promise<void> {
  for (const batch of batches) await store.appendBatch(batch);
}

describe('overview rollups equal the events aggregation (SQLite)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'cachet-rollup-'));
  const path = join(directory, 'traces.db');
  let database: Database.Database;
  const runner = (): SqlRunner => ({
    dialect: 'sqlite',
    all: async (sql, params) => database.prepare(sql).all(...params) as never,
  });
  beforeAll(async () => {
    const store = await openTraceStore(path);
    await load(store);
    await store.close();
    database = new Database(path);
  });
  afterAll(() => {
    database?.close();
    rmSync(directory, { recursive: true, force: true });
  });
  rollupMatchesEvents(runner);

  it('migration 4 backfills a store written before the rollups', async () => {
    const before = await queryOverview(runner(), {});
    database.exec(`DROP TABLE overview_usage; DROP TABLE overview_breaks; DROP TABLE overview_break_sums;
      DROP TABLE overview_sessions; DROP TABLE overview_session_losses; DROP TABLE overview_cause_sums; DROP TABLE overview_facets;
      DELETE FROM cachet_migrations WHERE version >= 4;
      DROP INDEX events_session_labels;
      ${['source', 'client', 'provider', 'strategy', 'run', 'workload', 'project', 'model'].map((name) => `DROP INDEX events_started_${name};`).join(' ')}`);
    database.close();
    const reopened = await openTraceStore(path);
    expect(reopened.schemaVersion).toBe(6);
    await reopened.close();
    database = new Database(path);
    expect(rounded(await queryOverview(runner(), {}))).toEqual(rounded(before));
    expect(rounded(await querySessionList(runner(), { limit: 500 }))).toEqual(
      rounded(await querySessionList(runner(), { limit: 500 }, 'events')),
    );
    await expectSessionRollupsEqualEvents(runner());
  });
});

const binaries = findPostgresBinaries();

describe.skipIf(!binaries.found)('overview rollups equal the events aggregation (PostgreSQL)', () => {
  let server: ThrowawayPostgres | undefined;
  let pool: pg.Pool;
  const runner = (): SqlRunner => ({
    dialect: 'postgres',
    all: async (sql, params) => (await pool.query(toPostgresPlaceholders(sql), params as unknown[])).rows,
  });
  beforeAll(async () => {
    if (!binaries.found) return;
    server = await startThrowawayPostgres(binaries.bindir);
    const url = await server.createDatabase('rollup');
    const store = await openTraceStore(url);
    await load(store);
    await store.close();
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    server?.stop();
  });
  rollupMatchesEvents(runner);
});
