/**
 * `npm run bench -- serve` (issue 13 §4): the analytics server over 50,000 events. The server
 * runs in its own process (as `cachet serve` would), the load comes from this one over
 * node:http. Prints throughput, latency and the server's resident memory, with a PASS/MISS
 * line per target; exits 0 either way (a benchmark reports, it does not gate).
 *
 * Targets: ≥ 200 req/s and p99 ≤ 250 ms on /analytics/cache_effectiveness at 100 connections;
 * resident memory bounded with 2,000 requests in flight (SQLite and, when the server binaries
 * are installed, PostgreSQL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openTraceStore } from '../src/trace/open-trace-store.js';
import { findPostgresBinaries, startThrowawayPostgres } from '../src/trace/test-support/throwaway-postgres.js';
import { type LoadResult, runLoad } from './support/load-generator.js';
import { traceEvents } from './support/trace-events.js';

const EVENTS = 50_000;
console.log(
  `load average ${(await import('node:os'))
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${(await import('node:os')).availableParallelism()} CPUs`,
);
const RSS_BOUND_MB = 400;
const BROWSER = { 'accept-encoding': 'gzip, deflate, br' };
const childScript = fileURLToPath(new URL('./support/serve-child.ts', import.meta.url));

function verdict(pass: boolean, text: string): void {
  console.log(`${pass ? 'PASS' : 'MISS'}  ${text}`);
}

function describeLoad(label: string, result: LoadResult): void {
  const statuses = Object.entries(result.byStatus)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  console.log(
    `${label.padEnd(44)} ${result.okPerSecond.toFixed(0).padStart(6)} ok req/s  p50 ${result.p50Ms.toFixed(1)} ms  p99 ${result.p99Ms.toFixed(1)} ms  max ${result.maxMs.toFixed(0)} ms  [${statuses}${result.errors ? ` errors×${result.errors}` : ''}]`,
  );
}

/** CPU time (user + system) a process has used so far, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After the command: state is field 3, utime field 14 and stime field 15 (1-based, see proc(5)).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size of a process now and at its peak (VmHWM), in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
}

async function startServerProcess(location: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, location], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const match = /^listening (.+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, url };
}

async function stopServerProcess(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin!.end();
  await exited;
}

async function fill(location: string): Promise<void> {
  const store = await openTraceStore(location);
  const events = traceEvents(EVENTS);
  for (let start = 0; start < events.length; start += 5000) await store.appendBatch(events.slice(start, start + 5000));
  await store.close();
}

async function benchBackend(name: string, location: string): Promise<void> {
  console.log(`\n--- ${name}: ${EVENTS} events at ${location.replace(/:[^:@/]*@/, ':***@')}`);
  const started = performance.now();
  await fill(location);
  console.log(`filled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { child, url } = await startServerProcess(location);
  try {
    const pid = child.pid!;
    const full = '/analytics/cache_effectiveness';
    // One request first: the figure every later answer is reused from until new events arrive.
    const cold = performance.now();
    await fetch(`${url}${full}`).then((response) => response.text());
    console.log(`first (uncached) ${full}: ${(performance.now() - cold).toFixed(0)} ms`);
    const idle = memoryOf(pid);

    const plain = await runLoad({ url, paths: [full], connections: 100, seconds: 5 });
    describeLoad(`${full}, 100 conn., identity`, plain);
    // As a browser (the dashboard) asks: gzip accepted.
    const cpuBefore = cpuMsOf(pid);
    const hundred = await runLoad({ url, paths: [full], connections: 100, seconds: 8, headers: BROWSER });
    const cpuPerRequest = (cpuMsOf(pid) - cpuBefore) / Math.max(1, hundred.requests);
    describeLoad(`${full}, 100 conn., gzip`, hundred);
    // Independent of how busy the machine is: what one request costs the server.
    console.log(
      `server CPU per request: ${cpuPerRequest.toFixed(2)} ms (≈ ${(1000 / cpuPerRequest).toFixed(0)} req/s per free core)`,
    );
    verdict(hundred.okPerSecond >= 200, `≥ 200 req/s on ${full} at 100 connections (${hundred.okPerSecond.toFixed(0)})`);
    verdict(hundred.p99Ms <= 250, `p99 ≤ 250 ms at 100 connections (${hundred.p99Ms.toFixed(1)} ms)`);

    const mixed = await runLoad({
      url,
      paths: [full, `${full}?model=gpt-5`, '/analytics/skills', '/analytics/cache_breaks', '/sessions', '/'],
      connections: 100,
      seconds: 5,
      headers: BROWSER,
    });
    describeLoad('mixed endpoints and the page, 100 connections', mixed);

    const flood = await runLoad({
      url,
      paths: [full, `${full}?session=bench-3`, '/sessions'],
      connections: 2000,
      seconds: 6,
      headers: BROWSER,
    });
    const after = memoryOf(pid);
    describeLoad('2,000 in flight', flood);
    console.log(
      `server RSS: ${idle.rssMb.toFixed(0)} MB idle, ${after.rssMb.toFixed(0)} MB after the flood, peak ${after.peakMb.toFixed(0)} MB`,
    );
    verdict(
      after.peakMb <= RSS_BOUND_MB,
      `server peak RSS ≤ ${RSS_BOUND_MB} MB with 2,000 in flight (${after.peakMb.toFixed(0)} MB)`,
    );
  } finally {
    await stopServerProcess(child);
  }
}

const directory = mkdtempSync(join(tmpdir(), 'cachet-serve-bench-'));
try {
  await benchBackend('SQLite', join(directory, 'traces.db'));
  const binaries = findPostgresBinaries();
  if (binaries.found) {
    const postgres = await startThrowawayPostgres(binaries.bindir);
    try {
      await benchBackend('PostgreSQL', await postgres.createDatabase('serve_bench'));
    } finally {
      postgres.stop();
    }
  } else {
    console.log(`\nPostgreSQL part skipped: ${binaries.reason}`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
