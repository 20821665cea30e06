/**
 * `simulateWorkload` per-request cost as the session grows: the long-session workload with its
 * `repeat` counts scaled to about 100 / 1,000 / 5,000 turns, one process per size. Reports CPU
 * ms per request of the cachet strategy. The baseline (ideal reads and oracle, computed once per
 * workload and shared by every strategy) is not part of a strategy's per-request cost: by default
 * the strategy runs against a stand-in baseline (zero ideal reads, an empty oracle), which changes
 * no decision the strategy makes, so 5,000 turns finish; CACHET_SCALING_BASELINE=1 computes and
 * times the real one too. Target (issue 20): per-request cost flat, 5,000 ÷ 100 turns ≤ 2.
 * Each size reports the median of its repeated runs (see `measure`).
 * Run: `npm run bench -- simulate-scaling`. CACHET_SCALING_TURNS=100,1000 picks the sizes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulateWorkload } from '../src/simulate/simulate-workload.js';
import { type SimulationBaseline, simulationBaseline } from '../src/simulate/simulation-baseline.js';
import { loadWorkload } from '../src/workloads/load-workload.js';
import type { Workload } from '../src/workloads/workload.js';

const WORKLOAD = join(dirname(fileURLToPath(import.meta.url)), '..', 'workloads', '05-long-session-idle-gaps.yaml');
/** The file's two `repeat` blocks of one turn pair each: `count: n` gives about 2n turns. */
const SIZES = (process.env.CACHET_SCALING_TURNS ?? '100,1000,5000').split(',').map(Number);

interface SizeResult {
  turns: number;
  requests: number;
  /** How many times the size ran in its process (the figures are the median run's). */
  repetitions: number;
  /** Null when the stand-in baseline ran (CACHET_SCALING_BASELINE unset). */
  baselineMsPerRequest: number | null;
  simulateMsPerRequest: number;
  lastTenthMsPerRequest: number;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * A size runs again in its process until it has simulated about 2,000 requests (at most 11 times,
 * the workload loaded afresh each time), and reports the median run: a single 100-turn run's last
 * tenth is 19 requests, still warming the JIT, and moved the ratio between 0.8× and 2.8× from one
 * run to the next. The medians compare per-request costs at steady state, as the 5,000-turn run's
 * last tenth already does. (Repeating does not only warm the JIT: the heap the earlier runs leave
 * also costs the later ones, and on the quiet machine the 100-turn median read 1.39–1.60 ms where
 * single runs read 1.19–2.24.)
 */
const REQUESTS_PER_SIZE = 2_000;

async function measure(turns: number): Promise<SizeResult> {
  const runs = [await measureOnce(turns)];
  const repetitions = Math.min(11, Math.ceil(REQUESTS_PER_SIZE / runs[0]!.requests));
  while (runs.length < repetitions) runs.push(await measureOnce(turns));
  const median = (values: number[]) => values.sort((left, right) => left - right)[Math.floor(values.length / 2)]!;
  const baselines = runs.map((run) => run.baselineMsPerRequest);
  return {
    turns: runs[0]!.turns,
    requests: runs[0]!.requests,
    repetitions,
    baselineMsPerRequest: baselines.includes(null) ? null : median(baselines as number[]),
    simulateMsPerRequest: median(runs.map((run) => run.simulateMsPerRequest)),
    lastTenthMsPerRequest: median(runs.map((run) => run.lastTenthMsPerRequest)),
  };
}

async function measureOnce(turns: number): Promise<SizeResult> {
  const text = readFileSync(WORKLOAD, 'utf8');
  const count = Math.max(1, Math.round(turns / 2));
  const directory = mkdtempSync(join(tmpdir(), 'cachet-scaling-'));
  const file = join(directory, 'long-session.yaml');
  writeFileSync(file, text.replaceAll('count: 100', `count: ${count}`));
  try {
    const workload = await loadWorkload(file);
    const requestCount = workload.turns.reduce((total, turn) => total + turn.steps.length, 0);
    let started = cpuMs();
    const realBaseline = process.env.CACHET_SCALING_BASELINE === '1';
    const baseline = realBaseline
      ? simulationBaseline(workload, workload.provider, workload.model)
      : standInBaseline(workload, requestCount);
    const baselineMs = realBaseline ? cpuMs() - started : null;
    const stamps: number[] = [];
    started = cpuMs();
    simulateWorkload(workload, { strategy: 'cachet', baseline, onProgress: () => stamps.push(cpuMs()) });
    const simulateMs = cpuMs() - started;
    const tenth = Math.max(1, Math.floor(stamps.length / 10));
    const lastTenth = ((stamps.at(-1) as number) - (stamps.at(-1 - tenth) as number)) / tenth;
    return {
      turns: workload.turns.length,
      requests: requestCount,
      repetitions: 1,
      baselineMsPerRequest: baselineMs === null ? null : baselineMs / requestCount,
      simulateMsPerRequest: simulateMs / requestCount,
      lastTenthMsPerRequest: lastTenth,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Zero ideal reads and an empty oracle: what the strategy's run needs of a baseline, at no cost. */
function standInBaseline(workload: Workload, requests: number): SimulationBaseline {
  return {
    provider: workload.provider,
    model: workload.model,
    idealCacheReadTokens: new Array<number>(requests).fill(0),
    oracle: {
      cost: 0,
      priced: false,
      processedTokens: 0,
      paddingTokens: 0,
      toolDeclaration: 'up-front',
      requests: [],
      futureKnowledge: [],
    },
  };
}

const workerFlag = process.argv.indexOf('--turns');
if (workerFlag >= 0) {
  process.stdout.write(JSON.stringify(await measure(Number(process.argv[workerFlag + 1]))));
} else {
  const results: SizeResult[] = [];
  for (const turns of SIZES) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--turns', String(turns)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
      env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() },
    });
    if (child.status !== 0) {
      console.error(child.stderr);
      process.exit(1);
    }
    results.push(JSON.parse(child.stdout) as SizeResult);
  }
  console.log('cachet simulate, long-session workload scaled by its repeat counts (CPU ms per request)\n');
  console.log('turns  requests  runs  baseline ms/req  simulate ms/req  last tenth ms/req');
  for (const result of results) {
    console.log(
      [
        String(result.turns).padStart(5),
        String(result.requests).padStart(9),
        String(result.repetitions).padStart(5),
        (result.baselineMsPerRequest === null ? '—' : result.baselineMsPerRequest.toFixed(2)).padStart(16),
        result.simulateMsPerRequest.toFixed(2).padStart(16),
        result.lastTenthMsPerRequest.toFixed(2).padStart(18),
      ].join(' '),
    );
  }
  const first = results[0];
  const last = results.at(-1);
  if (first && last && last !== first) {
    const ratio = last.lastTenthMsPerRequest / first.lastTenthMsPerRequest;
    const meanRatio = last.simulateMsPerRequest / first.simulateMsPerRequest;
    console.log(
      `\nratio ${last.turns}/${first.turns} turns: last tenth per request ${ratio.toFixed(2)}×, mean per request ${meanRatio.toFixed(2)}× (target ≤ 2×) ${ratio <= 2 ? 'MET' : 'NOT MET'}`,
    );
  }
}
