/**
 * The online floor (issue 24): per bundled workload, the hindsight oracle, Cachet, and the best
 * policy that decides each history TTL at send time (and pings once the reply is in) knowing the
 * workload's gap distribution by request class but not the gap that follows
 * (`src/simulate/online-floor.ts`), each run through the simulator with its real pricing.
 * First on the workload as bundled, then in expectation over `SAMPLES` copies whose gaps are
 * redrawn from the same distribution (the floor is optimal in expectation, not on one draw).
 * Run: `npm run bench -- online-floor` (`FLOOR_SAMPLES=n`, `FLOOR_ONLY=name` to change them;
 * `FLOOR_MODEL=id` runs the chosen workloads on another model of their provider; `FLOOR_SEED=n` redraws
 * with another seed [24]).
 */
import { providerEntry } from '../src/providers/registry.js';
import type { FloorKnowledge } from '../src/simulate/online-floor.js';
import { floorChain, resampledWorkload, runOnlineFloor, seededRandom } from '../src/simulate/online-floor-run.js';
import { type SimulationResult, simulateWorkload, simulationModel } from '../src/simulate/simulate-workload.js';
import { simulationBaseline } from '../src/simulate/simulation-baseline.js';
import { bundledWorkloadNames } from '../src/workloads/bundled-workloads.js';
import { loadWorkload } from '../src/workloads/load-workload.js';
import type { Workload } from '../src/workloads/workload.js';

const FIVE_MINUTES = 5 * 60_000;
const SAMPLES = Number(process.env.FLOOR_SAMPLES ?? 30);
const ONLY = process.env.FLOOR_ONLY;
const MODEL = process.env.FLOOR_MODEL;
const SEED = Number(process.env.FLOOR_SEED ?? 24);
const KNOWLEDGE: readonly FloorKnowledge[] = ['class', 'class-and-reply', 'realized-gap'];
const LABEL: Record<FloorKnowledge, string> = {
  class: 'online floor (class)',
  'class-and-reply': 'floor told reply kind',
  'realized-gap': 'floor told the gap',
};

interface Costs {
  /** USD, or tokens processed where the model has no price (local engines). */
  priced: boolean;
  oracle: number;
  cachet: number;
  floor: Record<FloorKnowledge, number>;
}

/** USD where the model is priced, else the tokens the engine processed (as the oracle counts them). */
function spend(result: SimulationResult): number {
  return result.priced ? result.totals.costUsd : result.totals.inputTokens - result.totals.cacheReadTokens;
}

/** The model a workload runs on here: `FLOOR_MODEL` (another model of its own provider), else its own. */
function modelOf(workload: Workload): string {
  return MODEL ?? simulationModel(workload, workload.provider);
}

function costsOf(workload: Workload): Costs {
  const provider = workload.provider;
  const model = modelOf(workload);
  const baseline = simulationBaseline(workload, provider, model);
  const cachet = simulateWorkload(workload, { strategy: 'cachet', model, baseline });
  const floor = Object.fromEntries(
    KNOWLEDGE.map((knowledge) => [knowledge, spend(runOnlineFloor(workload, knowledge, { model, baseline }).result)]),
  ) as Record<FloorKnowledge, number>;
  return { oracle: baseline.oracle.cost, cachet: spend(cachet), floor, priced: baseline.oracle.priced };
}

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(2)}%`;
const amount = (value: number, priced: boolean) => (priced ? `$${value.toFixed(4)}` : `${Math.round(value)} tokens`);

function table(costs: Costs, note: string): void {
  const rows: [string, number][] = [
    ['hindsight oracle', costs.oracle],
    ['cachet', costs.cachet],
    ...KNOWLEDGE.map((knowledge): [string, number] => [LABEL[knowledge], costs.floor[knowledge]]),
  ];
  console.log(`  ${note}`);
  for (const [label, cost] of rows) {
    console.log(`    ${label.padEnd(24)} ${amount(cost, costs.priced).padStart(9)}  regret ${percent(cost / costs.oracle - 1)}`);
  }
  const floor = costs.floor.class;
  console.log(
    `    cachet − online floor: ${amount(costs.cachet - floor, costs.priced)} (${percent(costs.cachet / floor - 1)} of the floor); cachet − oracle: ${amount(costs.cachet - costs.oracle, costs.priced)}`,
  );
}

/** Mean and standard error of the paired difference `left − right` over the samples. */
function paired(samples: readonly Costs[], left: (costs: Costs) => number, right: (costs: Costs) => number): string {
  const differences = samples.map((costs) => left(costs) - right(costs));
  const mean = differences.reduce((sum, value) => sum + value, 0) / differences.length;
  const variance = differences.reduce((sum, value) => sum + (value - mean) ** 2, 0) / Math.max(1, differences.length - 1);
  return `$${mean.toFixed(4)} ± ${(Math.sqrt(variance / differences.length)).toFixed(4)}`;
}

/** Each run's regret draw by draw: its mean, standard error, lowest and median, and how many draws are within 2%. */
function perRedraw(samples: readonly Costs[]): void {
  const runs: [string, (costs: Costs) => number][] = [
    ['cachet', (costs) => costs.cachet],
    ...KNOWLEDGE.map((knowledge): [string, (costs: Costs) => number] => [LABEL[knowledge], (costs) => costs.floor[knowledge]]),
  ];
  for (const [label, of] of runs) {
    const regrets = samples.map((costs) => of(costs) / costs.oracle - 1).sort((left, right) => left - right);
    const average = regrets.reduce((sum, value) => sum + value, 0) / regrets.length;
    const spread = Math.sqrt(regrets.reduce((sum, value) => sum + (value - average) ** 2, 0) / Math.max(1, regrets.length - 1));
    const within = regrets.filter((value) => value <= 0.02).length;
    console.log(
      `    per redraw, ${label.padEnd(24)} regret ${percent(average)} ± ${((100 * spread) / Math.sqrt(regrets.length)).toFixed(2)}% (lowest ${percent(regrets[0] ?? 0)}, median ${percent(regrets[Math.floor(regrets.length / 2)] ?? 0)}), ≤ 2% in ${within} of ${regrets.length}`,
    );
  }
}

function expectation(workload: Workload): void {
  const chain = floorChain(workload, workload.provider, modelOf(workload));
  if (!chain.some((request) => (request.gapAfterMs ?? 0) > FIVE_MINUTES)) {
    console.log('  no gap outlasts 5 minutes: redrawing the gaps changes nothing');
    return;
  }
  const random = seededRandom(SEED);
  const samples: Costs[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) samples.push(costsOf(resampledWorkload(workload, chain, random)));
  const mean = (of: (costs: Costs) => number) => samples.reduce((sum, costs) => sum + of(costs), 0) / samples.length;
  table(
    {
      priced: samples[0]?.priced ?? true,
      oracle: mean((costs) => costs.oracle),
      cachet: mean((costs) => costs.cachet),
      floor: Object.fromEntries(
        KNOWLEDGE.map((knowledge) => [knowledge, mean((costs) => costs.floor[knowledge])]),
      ) as Costs['floor'],
    },
    `mean over ${SAMPLES} redraws of the gaps (seed ${SEED}):`,
  );
  console.log(
    `    paired cachet − online floor: ${paired(
      samples,
      (costs) => costs.cachet,
      (costs) => costs.floor.class,
    )} (mean ± standard error)`,
  );
  console.log(
    `    paired cachet − oracle:       ${paired(
      samples,
      (costs) => costs.cachet,
      (costs) => costs.oracle,
    )}`,
  );
  perRedraw(samples);
}

const started = performance.now();
for (const name of bundledWorkloadNames()) {
  if (ONLY && !name.includes(ONLY)) continue;
  const workload = await loadWorkload(name);
  const entry = providerEntry(workload.provider);
  console.log(`\n## ${workload.name} (${workload.provider} ${modelOf(workload)})`);
  if (!entry.acceptsHistoryTtl) {
    table(costsOf(workload), 'as bundled (this provider takes no history TTL: every run lays out and caches alike):');
    continue;
  }
  table(costsOf(workload), 'as bundled:');
  if (SAMPLES > 0) expectation(workload);
}
console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);
