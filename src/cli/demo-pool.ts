import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CachetEvent } from '../events/catalog.js';
import { KEEP_ALIVE_BASE, type KeepAliveDesign } from '../simulate/keep-alive-strategy.js';
import type { SimulationResult } from '../simulate/simulate-workload.js';
import type { SimulationBaseline } from '../simulate/simulation-baseline.js';
import type { StrategyName } from '../simulate/strategy.js';
import { type DemoTask, type DemoTaskResult, runDemoTask } from './demo-task.js';
import type { WorkerReply } from './demo-worker.js';

export interface DemoPlan {
  workloads: readonly string[];
  strategies: readonly StrategyName[];
  /** The run's label and the session id of each workload × strategy. */
  run: string;
  sessionIdOf: (workload: string, strategy: StrategyName) => string;
  /** Collect each run's events (for the trace store). */
  events: boolean;
  /** Run every workload on this model instead of its own (`cachet demo --model`). */
  model?: string;
}

/** What is running now, for a progress line. */
export interface RunningTask {
  workload: string;
  what: StrategyName | 'baseline';
  done: number;
  total: number;
}

export interface DemoPoolCallbacks {
  /** Something started, advanced or finished. */
  onProgress: (running: readonly RunningTask[], finishedRuns: number, totalRuns: number) => void;
  /** A strategy's run finished (in completion order). */
  onRunDone: (run: {
    workload: string;
    strategy: StrategyName;
    requests: number;
    finishedRuns: number;
    totalRuns: number;
  }) => void;
  /** A workload's results and events, strictly in workload order; awaited before the next. */
  onWorkload: (index: number, results: SimulationResult[], events: CachetEvent[][]) => Promise<void>;
}

interface Executor {
  run(task: DemoTask, onProgress: (done: number, total: number) => void): Promise<DemoTaskResult>;
  close(): Promise<void>;
}

/** Threads for `tasks` independent runs: `CACHET_DEMO_THREADS` if set, else the machine's parallelism. */
export function demoThreads(workloads: number, env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.CACHET_DEMO_THREADS);
  const threads = Number.isInteger(asked) && asked > 0 ? asked : availableParallelism();
  // One workload is a baseline then its strategies: a worker's start-up would cost more than it saves.
  return workloads < 2 ? 1 : Math.max(1, Math.min(threads, workloads * 2));
}

/**
 * Run every workload's baseline and strategies on `threads` threads (worker threads when more
 * than one), and hand each workload's results over in workload order, whatever order they
 * finish in: the output is the same as a sequential run's.
 */
export async function runDemoPool(plan: DemoPlan, threads: number, callbacks: DemoPoolCallbacks): Promise<void> {
  const executors: Executor[] = threads <= 1 ? [inProcessExecutor()] : Array.from({ length: threads }, () => workerExecutor());
  const scheduler = new DemoScheduler(plan, callbacks);
  try {
    await Promise.all(executors.map((executor) => scheduler.drive(executor)));
    await scheduler.finished();
  } finally {
    await Promise.all(executors.map((executor) => executor.close()));
  }
}

interface QueuedTask {
  /** Workload index, and strategy index (-1 for the baseline). */
  index: number;
  order: number;
  task: DemoTask;
}

/** The queue of tasks, what each finished task unlocks, and the in-order hand-over of workloads. */
class DemoScheduler {
  private readonly pending: QueuedTask[];
  private readonly results: Array<Array<SimulationResult | undefined>>;
  private readonly events: CachetEvent[][][];
  private readonly remaining: number[];
  private readonly running = new Set<RunningTask>();
  private readonly totalRuns: number;
  private finishedRuns = 0;
  private nextToHand = 0;
  private handing = Promise.resolve();
  private waiters: Array<() => void> = [];
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly plan: DemoPlan,
    private readonly callbacks: DemoPoolCallbacks,
  ) {
    this.totalRuns = plan.workloads.length * plan.strategies.length;
    this.pending = plan.workloads.map((workload, index) => ({
      index,
      order: -1,
      task: { kind: 'baseline', workload, ...modelOf(plan) },
    }));
    this.results = plan.workloads.map(() => new Array<SimulationResult | undefined>(plan.strategies.length));
    this.events = plan.workloads.map(() => new Array<CachetEvent[]>(plan.strategies.length).fill([]));
    this.remaining = plan.workloads.map(() => plan.strategies.length);
  }

  /** Take tasks for one executor until every run is done (or one failed). */
  async drive(executor: Executor): Promise<void> {
    while (this.failure === null && this.finishedRuns < this.totalRuns) {
      // Earliest workload first, so tables can be printed while later workloads still run.
      this.pending.sort((a, b) => a.index - b.index || a.order - b.order);
      const item = this.pending.shift();
      if (!item) {
        // Every queued task is taken: wait until a running one finishes (a baseline adds tasks).
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      const task = item.task;
      const entry: RunningTask = {
        workload: task.workload,
        what: task.kind === 'baseline' ? 'baseline' : task.strategy,
        done: 0,
        total: 0,
      };
      this.running.add(entry);
      this.report();
      try {
        const outcome = await executor.run(task, (done, total) => {
          entry.done = done;
          entry.total = total;
          this.report();
        });
        this.running.delete(entry);
        this.finish(item, outcome);
      } catch (error) {
        this.failure ??= { error };
      }
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolves when every workload was handed over; rejects with the first task's failure. */
  async finished(): Promise<void> {
    if (this.failure) throw this.failure.error;
    await this.handing;
  }

  private report(): void {
    this.callbacks.onProgress([...this.running], this.finishedRuns, this.totalRuns);
  }

  private finish(item: QueuedTask, outcome: DemoTaskResult): void {
    const workload = item.task.workload;
    if (outcome.kind === 'baseline') {
      this.plan.strategies.forEach((strategy, order) => {
        // A pinging design waits for its base's run: with no ping fired, that run is its own.
        if (baseOf(strategy, this.plan.strategies) !== null) return;
        this.pending.push({ index: item.index, order, task: this.strategyTask(workload, strategy, outcome.baseline) });
      });
      return;
    }
    this.record(item.index, item.order, outcome.result, outcome.events);
    if (item.task.kind !== 'strategy') return;
    for (const design of item.task.probes ?? []) {
      const order = this.plan.strategies.indexOf(design);
      if (outcome.pingless.includes(design)) {
        const sessionId = this.plan.sessionIdOf(workload, design);
        const events = outcome.events.map((event) => ({ ...event, sessionId }));
        this.record(item.index, order, { ...outcome.result, strategy: design }, events);
      } else {
        this.pending.push({ index: item.index, order, task: this.strategyTask(workload, design, item.task.baseline) });
      }
    }
  }

  private strategyTask(workload: string, strategy: StrategyName, baseline: SimulationBaseline): DemoTask {
    const probes = this.plan.strategies.filter(
      (design): design is KeepAliveDesign => baseOf(design, this.plan.strategies) === strategy,
    );
    return {
      kind: 'strategy',
      workload,
      strategy,
      baseline,
      sessionId: this.plan.sessionIdOf(workload, strategy),
      run: this.plan.run,
      events: this.plan.events,
      ...(probes.length > 0 ? { probes } : {}),
      ...modelOf(this.plan),
    };
  }

  /** A strategy's run is done: keep it, and hand over every workload now complete, in order. */
  private record(index: number, order: number, result: SimulationResult, events: CachetEvent[]): void {
    (this.results[index] as Array<SimulationResult | undefined>)[order] = result;
    (this.events[index] as CachetEvent[][])[order] = events;
    this.remaining[index] = (this.remaining[index] as number) - 1;
    this.finishedRuns += 1;
    this.callbacks.onRunDone({
      workload: this.plan.workloads[index] as string,
      strategy: this.plan.strategies[order] as StrategyName,
      requests: result.requests.length,
      finishedRuns: this.finishedRuns,
      totalRuns: this.totalRuns,
    });
    while (this.nextToHand < this.plan.workloads.length && this.remaining[this.nextToHand] === 0) {
      const handed = this.nextToHand++;
      const results = this.results[handed] as SimulationResult[];
      const runEvents = this.events[handed] as CachetEvent[][];
      this.handing = this.handing.then(() => this.callbacks.onWorkload(handed, results, runEvents));
    }
  }
}

/** The strategy a pinging design runs between pings, when the plan runs it too; else null. */
function baseOf(strategy: StrategyName, strategies: readonly StrategyName[]): StrategyName | null {
  const base = (KEEP_ALIVE_BASE as Partial<Record<StrategyName, StrategyName>>)[strategy];
  return base !== undefined && strategies.includes(base) ? base : null;
}

function inProcessExecutor(): Executor {
  return { run: (task, onProgress) => runDemoTask(task, onProgress), close: async () => {} };
}

/**
 * A worker thread running demo-worker. From dist/ it is plain JavaScript. From the sources
 * (`npm run demo` under tsx, tests) it is TypeScript: a worker does not inherit tsx's loader,
 * so a small bootstrap registers tsx in the worker (tsx is a dev dependency, there whenever the
 * sources run) and then imports the worker module.
 */
function workerExecutor(): Executor {
  const fromSources = import.meta.url.endsWith('.ts');
  const url = new URL(fromSources ? './demo-worker.ts' : './demo-worker.js', import.meta.url);
  let worker: Worker;
  if (fromSources) {
    const tsxDirectory = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
    const api = pathToFileURL(join(tsxDirectory, 'dist', 'esm', 'api', 'index.mjs')).href;
    const bootstrap = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
    worker = new Worker(bootstrap, { eval: true });
  } else {
    worker = new Worker(url);
  }
  let nextId = 0;
  const waiting = new Map<
    number,
    {
      resolve: (result: DemoTaskResult) => void;
      reject: (error: unknown) => void;
      onProgress: (done: number, total: number) => void;
    }
  >();
  const failAll = (error: unknown) => {
    for (const entry of waiting.values()) entry.reject(error);
    waiting.clear();
  };
  worker.on('message', (reply: WorkerReply) => {
    const entry = waiting.get(reply.id);
    if (!entry) return;
    if (reply.kind === 'progress') entry.onProgress(reply.done, reply.total);
    else if (reply.kind === 'done') {
      waiting.delete(reply.id);
      entry.resolve(reply.result);
    } else {
      waiting.delete(reply.id);
      const error = new Error(reply.message);
      if (reply.stack) error.stack = reply.stack;
      entry.reject(error);
    }
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`demo worker exited (code ${code}) before finishing its task`)));
  return {
    run(task, onProgress) {
      const id = nextId++;
      return new Promise<DemoTaskResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject, onProgress });
        worker.postMessage({ id, task });
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}

/** The plan's model override as a task field (absent when the workloads keep their own). */
function modelOf(plan: DemoPlan): { model?: string } {
  return plan.model === undefined ? {} : { model: plan.model };
}
