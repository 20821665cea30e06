/**
 * `npm run bench -- serve` (issue 25): the overview's store queries at 10,000 sessions and
 * 1,000,000 events (100 requests per session with their breaks; `CACHET_BENCH_SESSIONS` scales
 * it down), on SQLite and, when the server binaries are installed, PostgreSQL. Prints p50/p99
 * per query over repeated runs (the server's answer cache is bypassed: these are cold queries).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTraceStore } from '../src/trace/open-trace-store.js';
import { FLEET_T0, fleetEvents } from '../src/trace/test-support/fleet-events.js';
import { findPostgresBinaries, startThrowawayPostgres } from '../src/trace/test-support/throwaway-postgres.js';
import type { TraceStore } from '../src/trace/trace-store.js';

const SESSIONS = Number(process.env.CACHET_BENCH_SESSIONS ?? 10_000);
const REQUESTS = 80;
const RUNS = Number(process.env.CACHET_BENCH_RUNS ?? 7);

const QUERIES: Array<[string, (store: TraceStore) => Promise<unknown>]> = [
  ['overview (all)', (store) => store.overview()],
  ['overview source=simulation', (store) => store.overview({ source: 'simulation' })],
  ['overview model, 1 day', (store) => store.overview({ model: 'gpt-5', from: FLEET_T0, to: FLEET_T0 + 86_400_000 })],
  ['session list page 1', (store) => store.sessionList({ limit: 25 })],
  ['session list sort=lost', (store) => store.sessionList({ sort: 'lost', limit: 25 })],
  ['metrics', (store) => store.fleetMetrics()],
];

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

async function measure(label: string, store: TraceStore): Promise<void> {
  const started = performance.now();
  const events = await load(store);
  console.log(
    `${label}: ${SESSIONS} sessions, ${events} events loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  for (const [name, query] of QUERIES) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      await query(store);
      times.push(performance.now() - start);
    }
    times.sort((left, right) => left - right);
    const p50 = times[Math.floor(times.length / 2)]!;
    const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;
    console.log(
      `  ${name.padEnd(30)} p50 ${p50.toFixed(0).padStart(6)} ms  p99 ${p99.toFixed(0).padStart(6)} ms  (${RUNS} runs)`,
    );
  }
}

const directory = mkdtempSync(join(tmpdir(), 'cachet-bench-overview-'));
try {
  const sqlite = await openTraceStore(join(directory, 'traces.db'));
  await measure('SQLite', sqlite);
  await sqlite.close();
  const binaries = findPostgresBinaries();
  if (binaries.found) {
    const server = await startThrowawayPostgres(binaries.bindir);
    try {
      const postgres = await openTraceStore(await server.createDatabase('overview_bench'));
      await measure('PostgreSQL', postgres);
      await postgres.close();
    } finally {
      server.stop();
    }
  } else {
    console.log(`PostgreSQL skipped: ${binaries.reason}`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
