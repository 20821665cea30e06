import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

/**
 * Vitest setup: records the CPU time (user + system, in ms) each test file cost its worker in
 * `meta.cpuMs` of the file, for `npm run test:times` (scripts/file-times-reporter.ts). Wall times
 * inside a worker grow with the machine's load; CPU time barely does, so before/after figures
 * taken on a shared machine are compared by CPU. On Linux the figure includes the child processes
 * the file spawned and waited for (a CLI under tsx, a PostgreSQL server); elsewhere only the
 * worker. It counts from the worker's start (or the previous file's end when a worker is reused),
 * so it includes loading the file's imports; vite's transforms run in the main process and are
 * not in it.
 */
declare module '@vitest/runner' {
  interface TaskMeta {
    /** CPU time the test file cost its worker (see scripts/vitest-file-cpu.ts). */
    cpuMs?: number;
  }
}

const state = globalThis as { cachetCpuMsAtLastFile?: number };

function cpuMsSinceProcessStart(): number {
  try {
    // /proc/self/stat: after the command name, fields 14–17 are utime, stime, cutime, cstime in
    // clock ticks (100 per second on Linux).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    if (Number.isFinite(ticks)) return ticks * 10;
  } catch {
    // not Linux: the worker's own time only
  }
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

// biome-ignore lint/correctness/noEmptyPattern: vitest requires the first argument (the fixtures) to be destructured
afterAll(({}, file) => {
  const now = cpuMsSinceProcessStart();
  file.meta.cpuMs = Math.round(now - (state.cachetCpuMsAtLastFile ?? 0));
  state.cachetCpuMsAtLastFile = now;
});
