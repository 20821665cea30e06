import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { type SimulationResult, simulateWorkload } from '../simulate/simulate-workload.js';
import { type SimulationBaseline, simulationBaseline } from '../simulate/simulation-baseline.js';
import type { StrategyName } from '../simulate/strategy.js';
import { loadWorkload } from '../workloads/load-workload.js';
import type { Workload } from '../workloads/workload.js';

/**
 * One unit of the demo's work: a workload's baseline (the ideal and the oracle, shared by every
 * strategy), or one strategy's run against that baseline. Plain data, so a task and its result
 * cross a worker boundary by structured clone.
 */
export type DemoTask =
  | { kind: 'baseline'; workload: string; model?: string }
  | {
      kind: 'strategy';
      workload: string;
      /** The model the workload runs on instead of its own (`cachet demo --model`). */
      model?: string;
      strategy: StrategyName;
      baseline: SimulationBaseline;
      sessionId: string;
      run: string;
      /** Collect the run's events (for the trace store) and return them with the result. */
      events: boolean;
    };

export type DemoTaskResult =
  | { kind: 'baseline'; baseline: SimulationBaseline }
  | { kind: 'strategy'; result: SimulationResult; events: CachetEvent[] };

/** Workloads this thread has loaded, by bundled name (a task never changes one). */
const loaded = new Map<string, Promise<Workload>>();

function workloadNamed(name: string): Promise<Workload> {
  let workload = loaded.get(name);
  if (!workload) {
    workload = loadWorkload(name);
    loaded.set(name, workload);
  }
  return workload;
}

/** Run one demo task in this thread; `onProgress` gets the requests done and the total. */
export async function runDemoTask(task: DemoTask, onProgress: (done: number, total: number) => void): Promise<DemoTaskResult> {
  const workload = await workloadNamed(task.workload);
  if (task.kind === 'baseline') {
    return { kind: 'baseline', baseline: simulationBaseline(workload, workload.provider, task.model ?? workload.model) };
  }
  const events: CachetEvent[] = [];
  const bus = new EventBus();
  if (task.events) bus.onAny((event) => events.push(event));
  const result = simulateWorkload(workload, {
    strategy: task.strategy,
    ...(task.model === undefined ? {} : { model: task.model }),
    baseline: task.baseline,
    bus,
    sessionId: task.sessionId,
    labels: { run: task.run },
    onProgress,
  });
  return { kind: 'strategy', result, events };
}
