import { describe, expect, it } from 'vitest';
import type { SimulationResult } from '../simulate/simulate-workload.js';
import { type DemoPlan, demoThreads, runDemoPool } from './demo-pool.js';

/** Three of the strategies (one that pings): enough tasks to interleave on two threads, a third of the work. */
const STRATEGIES = ['naive', 'pi-warming', 'cachet'] as const;

const plan = (workloads: string[]): DemoPlan => ({
  workloads,
  strategies: STRATEGIES,
  run: 'demo-test',
  sessionIdOf: (workload, strategy) => `demo-test/${workload}/${strategy}`,
  events: true,
});

async function collect(workloads: string[], threads: number) {
  const handed: Array<{ index: number; results: SimulationResult[]; eventCounts: number[] }> = [];
  const progress: string[] = [];
  await runDemoPool(plan(workloads), threads, {
    onProgress: (running) => progress.push(...running.map((task) => `${task.workload}/${task.what}`)),
    onRunDone: () => {},
    onWorkload: async (index, results, events) => {
      handed.push({ index, results, eventCounts: events.map((list) => list.length) });
    },
  });
  return { handed, progress };
}

describe('demo pool', () => {
  it('worker threads hand over the same results, in workload order, as one thread', async () => {
    const workloads = ['data-analyst-deepseek', 'below-minimum'];
    const pooled = await collect(workloads, 2);
    const sequential = await collect(workloads, 1);
    expect(pooled.handed.map((entry) => entry.index)).toEqual([0, 1]);
    expect(pooled.handed).toEqual(sequential.handed);
    expect(pooled.handed.every((entry) => entry.results.map((result) => result.strategy).join() === STRATEGIES.join())).toBe(
      true,
    );
    expect(pooled.handed.every((entry) => entry.eventCounts.every((count) => count > 0))).toBe(true);
    expect(pooled.progress).toContain('below-minimum/baseline');
    expect(pooled.progress).toContain('data-analyst-deepseek/cachet');
  }, 120_000);

  it('fails with the failing task’s error, on one thread and on workers', async () => {
    await expect(collect(['below-minimum', 'no-such-workload'], 1)).rejects.toThrow(/no-such-workload/);
    await expect(collect(['below-minimum', 'no-such-workload'], 2)).rejects.toThrow(/no-such-workload/);
  }, 120_000);

  it('runs one workload on this thread and several on the machine’s threads (CACHET_DEMO_THREADS overrides)', () => {
    expect(demoThreads(1, {})).toBe(1);
    expect(demoThreads(5, { CACHET_DEMO_THREADS: '3' })).toBe(3);
    expect(demoThreads(5, { CACHET_DEMO_THREADS: '1' })).toBe(1);
    expect(demoThreads(5, { CACHET_DEMO_THREADS: 'x' })).toBeGreaterThanOrEqual(1);
  });
});
