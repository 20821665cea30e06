import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { PingProbe } from '../simulate/idle-pings.js';
import { type KeepAliveDesign, keepAliveSchedule } from '../simulate/keep-alive-strategy.js';
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
      /** Pinging designs based on this strategy (`KEEP_ALIVE_BASE`): say which would send no ping on this run. */
      probes?: readonly KeepAliveDesign[];
    };

export type DemoTaskResult =
  | { kind: 'baseline'; baseline: SimulationBaseline }
  | {
      kind: 'strategy';
      result: SimulationResult;
      events: CachetEvent[];
      /** The probed designs that would send no ping: their run is this one. */
      pingless: KeepAliveDesign[];
    };

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
  const probes = (task.probes ?? []).map((design) => ({
    design,
    probe: new PingProbe(task.baseline.provider, keepAliveSchedule(design, task.baseline.provider, task.baseline.model)),
  }));
  const result = simulateWorkload(workload, {
    strategy: task.strategy,
    ...(task.model === undefined ? {} : { model: task.model }),
    baseline: task.baseline,
    bus,
    sessionId: task.sessionId,
    labels: { run: task.run },
    onProgress,
    pingProbes: probes.map(({ probe }) => probe),
  });
  const pingless = probes.filter(({ probe }) => !probe.fired).map(({ design }) => design);
  return { kind: 'strategy', result, events, pingless };
}
