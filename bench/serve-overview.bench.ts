/**
 * `npm run bench -- serve` (issue 25): the overview's store queries at 10,000 sessions and
 * 1,000,000 events (80 requests per session with their breaks; `CACHET_BENCH_SESSIONS` scales
 * it down), on SQLite and, when the server binaries are installed, PostgreSQL. Prints p50/p99
 * per query over repeated runs (the server's answer cache is bypassed: these are cold queries),
 * read from the rollups, and once from the events themselves as the yardstick (the raw
 * aggregation the rollups replace). `CACHET_BENCH_DIR` keeps the SQLite file to reuse it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryFleetMetrics } from '../src/trace/fleet-metrics.js';
import type { OverviewSource } from '../src/trace/overview.js';
import { queryOverview } from '../src/trace/overview-queries.js';
import { openPostgresTraceStore } from '../src/trace/postgres-trace-store.js';
import { querySessionList } from '../src/trace/session-list-queries.js';
import type { SqlRunner } from '../src/trace/sql-runner.js';
import { openSqliteTraceStore } from '../src/trace/sqlite-trace-store.js';
import { FLEET_T0, fleetEvents } from '../src/trace/test-support/fleet-events.js';
import { findPostgresBinaries, startThrowawayPostgres } from '../src/trace/test-support/throwaway-postgres.js';
import type { TraceStore } from '../src/trace/trace-store.js';

const SESSIONS = Number(process.env.CACHET_BENCH_SESSIONS ?? 10_000);
const REQUESTS = 80;
const RUNS = Number(process.env.CACHET_BENCH_RUNS ?? 7);

/** `sqlite`, `postgres` or both (default). */
const BACKENDS = process.env.CACHET_BENCH_BACKENDS ?? 'sqlite,postgres';
/** The events aggregation takes minutes per query at full size: measured by default only when scaled down. */
const YARDSTICK_RUNS = Number(process.env.CACHET_BENCH_YARDSTICK_RUNS ?? (SESSIONS <= 1000 ? 1 : 0));
type Query = (runner: SqlRunner, source: OverviewSource) => Promise<unknown>;
const QUERIES: Array<[string, Query]> = [
  ['overview (all)', (runner, source) => queryOverview(runner, {}, source)],
  ['overview source=simulation', (runner, source) => queryOverview(runner, { source: 'simulation' }, source)],
  [
    'overview model, 1 day',
    (runner, source) => queryOverview(runner, { model: 'gpt-5', from: FLEET_T0, to: FLEET_T0 + 86_400_000 }, source),
  ],
  [
    'overview 1 day 10:17-16:43',
    (runner, source) =>
      queryOverview(runner, { from: FLEET_T0 + 86_400_000 + 8_220_000, to: FLEET_T0 + 86_400_000 + 31_380_000 }, source),
  ],
  ['session list page 1', (runner, source) => querySessionList(runner, { limit: 25 }, source)],
  ['session list sort=lost', (runner, source) => querySessionList(runner, { sort: 'lost', limit: 25 }, source)],
  ['metrics', (runner, source) => queryFleetMetrics(runner, source)],
];

/** The store's own runner (the bench reads both sources through it). */
const runnerOf = (store: TraceStore) => (store as unknown as { runner: SqlRunner }).runner;

async function load(store: TraceStore): Promise<number> {
  let batch = [];
  let count = 0;
  for (const event of fleetEvents({ sessions: SESSIONS, requestsPerSession: REQUESTS, spacingMs: 60_000 })) {
    batch.push(event);
    if (batch.length === 5_000) {
      await store.appendBatch(batch);
      count += batch.length;
      batch = [];
    }
  }
  await store.appendBatch(batch);
  return count + batch.length;
}

async function measure(label: string, store: TraceStore, loaded = false): Promise<void> {
  const started = performance.now();
  const events = loaded ? 'existing' : await load(store);
  console.log(
    `${label}: ${SESSIONS} sessions, ${events} events loaded in ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  const runner = runnerOf(store);
  for (const [name, query] of QUERIES) {
    const rollup = await timings(() => query(runner, 'rollup'), RUNS);
    const events = await timings(() => query(runner, 'events'), YARDSTICK_RUNS);
    console.log(
      `  ${name.padEnd(28)} rollup p50 ${rollup.p50.padStart(6)} ms  p99 ${rollup.p99.padStart(6)} ms  cpu p50 ${rollup.cpu.padStart(6)} ms (${RUNS} runs)` +
        `   events p50 ${events.p50.padStart(6)} ms (${YARDSTICK_RUNS} runs)`,
    );
  }
}

/** Wall p50/p99, and this process's CPU p50 (on SQLite the query's own cost; PostgreSQL's server is another process). */
async function timings(run: () => Promise<unknown>, runs: number): Promise<{ p50: string; p99: string; cpu: string }> {
  if (runs === 0) return { p50: '-', p99: '-', cpu: '-' };
  const times: number[] = [];
  const cpus: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    await run();
    const cpu = process.cpuUsage(cpuStart);
    times.push(performance.now() - start);
    cpus.push((cpu.user + cpu.system) / 1000);
  }
  const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;
  times.sort((left, right) => left - right);
  const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;
  return { p50: median(times).toFixed(0), p99: p99.toFixed(0), cpu: median(cpus).toFixed(0) };
}

const keep = process.env.CACHET_BENCH_DIR;
const directory = keep ?? mkdtempSync(join(tmpdir(), 'cachet-bench-overview-'));
try {
  const file = join(directory, `traces-${SESSIONS}.db`);
  const existing = keep !== undefined && existsSync(file);
  if (BACKENDS.includes('sqlite')) {
    const sqlite = openSqliteTraceStore(file);
    await measure('SQLite', sqlite, existing);
    await sqlite.close();
  }
  const binaries = findPostgresBinaries();
  if (!BACKENDS.includes('postgres')) {
    // SQLite only.
  } else if (binaries.found) {
    const server = await startThrowawayPostgres(binaries.bindir);
    try {
      const postgres = await openPostgresTraceStore(await server.createDatabase('overview_bench'));
      await measure('PostgreSQL', postgres);
      await postgres.close();
    } finally {
      server.stop();
    }
  } else {
    console.log(`PostgreSQL skipped: ${binaries.reason}`);
  }
} finally {
  if (keep === undefined) rmSync(directory, { recursive: true, force: true });
}
