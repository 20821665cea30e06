/**
 * The main job's speed (issue 20): `cachet demo` on every bundled workload, in this process,
 * with its CPU time, wall time and peak RSS, and its tables compared byte for byte with
 * bench/support/demo-golden.txt (the figures before the speed work). With
 * CACHET_BASELINE_CHECKOUT=<a checkout of an earlier commit, with node_modules>, that
 * checkout's `npm run demo -- --no-trace` runs too, in the same run, and the ratio is printed.
 * The demo runs twice: on worker threads (the default) and on one thread (CACHET_DEMO_THREADS=1).
 * Run: `npm run bench -- demo-speed`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDemo } from '../src/cli/commands/demo.js';

const golden = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'support', 'demo-golden.txt'), 'utf8');

/** The demo in this process on `threads` threads (1: no worker threads); CPU counts every thread. */
async function measure(threads: number | null): Promise<{ cpuSeconds: number; wallSeconds: number; output: string }> {
  if (threads === null) delete process.env.CACHET_DEMO_THREADS;
  else process.env.CACHET_DEMO_THREADS = String(threads);
  const lines: string[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await runDemo(
    { trace: false },
    { out: (text) => lines.push(text.endsWith('\n') ? text : `${text}\n`), err: () => {}, errIsTty: false },
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds: (performance.now() - started) / 1000, output: lines.join('') };
}

function check(label: string, output: string): void {
  const identical = output === golden;
  console.log(`${identical ? 'PASS' : 'MISS'}  ${label}: figures byte for byte as bench/support/demo-golden.txt`);
  if (!identical) {
    const ours = output.split('\n');
    const theirs = golden.split('\n');
    const first = ours.findIndex((line, index) => line !== theirs[index]);
    console.log(`      first difference at line ${first + 1}:\n      golden: ${theirs[first]}\n      now:    ${ours[first]}`);
  }
}

const pooled = await measure(null);
const threads = availableParallelism();
const rssMb = process.resourceUsage().maxRSS / 1024;
console.log(
  `demo (in process, tsx, ${threads} worker threads): ${pooled.cpuSeconds.toFixed(1)} s CPU, ${pooled.wallSeconds.toFixed(1)} s wall, peak RSS ${rssMb.toFixed(0)} MB`,
);
check('worker threads', pooled.output);
const sequential = await measure(1);
console.log(
  `demo (in process, tsx, one thread):  ${sequential.cpuSeconds.toFixed(1)} s CPU, ${sequential.wallSeconds.toFixed(1)} s wall`,
);
check('one thread', sequential.output);
console.log(
  `${pooled.output === sequential.output ? 'PASS' : 'MISS'}  worker threads print byte for byte what one thread prints`,
);
console.log(
  `worker threads: wall ${(sequential.wallSeconds / pooled.wallSeconds).toFixed(2)}× faster, CPU ${(pooled.cpuSeconds / sequential.cpuSeconds).toFixed(2)}× the one-thread run's`,
);
const cpuSeconds = pooled.cpuSeconds;

const baseline = process.env.CACHET_BASELINE_CHECKOUT;
if (baseline) {
  const child = spawnSync('bash', ['-c', 'npm run --silent demo -- --no-trace > /dev/null 2>&1; times'], {
    cwd: baseline,
    encoding: 'utf8',
  });
  // `times` prints the shell's and its children's user/system times: the second line is the demo's.
  const childTimes = child.stdout.trim().split('\n').at(-1) ?? '';
  const seconds = [...childTimes.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (total, match) => total + Number(match[1]) * 60 + Number(match[2]),
    0,
  );
  const ratio = cpuSeconds / seconds;
  console.log(`baseline ${baseline}: ${seconds.toFixed(1)} s CPU (npm run demo, tsx)`);
  console.log(`${ratio <= 1.5 ? 'PASS' : 'MISS'}  demo CPU ${ratio.toFixed(2)}× the baseline (target ≤ 1.5×)`);
}
