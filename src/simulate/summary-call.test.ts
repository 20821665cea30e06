import { describe, expect, it } from 'vitest';
import { createSimulationCompactionHook } from '../compaction/simulation-hook.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { simulateWorkload } from './simulate-workload.js';
import { simulationBaseline } from './simulation-baseline.js';

describe('summary calls are billed in the simulator', () => {
  it('bills each compaction summary as a fork that reads the warm parent, or a fresh call paid uncached; totals include it', async () => {
    const workload = await loadWorkload('claims-agent-bedrock');
    const baseline = simulationBaseline(workload, workload.provider, workload.model);
    const plain = simulateWorkload(workload, { strategy: 'cachet', baseline });
    expect(plain.summaries).toEqual([]);
    const windowTokens = Math.round(0.6 * Math.max(...plain.requests.map((request) => request.inputTokens)));
    const run = (timeByCache: boolean) =>
      simulateWorkload(workload, {
        strategy: 'cachet',
        baseline,
        compaction: createSimulationCompactionHook({
          provider: workload.provider,
          model: workload.model,
          windowTokens,
          timeByCache,
        }),
      });
    const timed = run(true);
    const thresholdsAlone = run(false);
    for (const result of [timed, thresholdsAlone]) {
      expect(result.summaries.length).toBeGreaterThan(0);
      const requestsUsd = result.requests.reduce((total, request) => total + request.costUsd, 0);
      const summariesUsd = result.summaries.reduce((total, summary) => total + summary.costUsd, 0);
      expect(summariesUsd).toBeGreaterThan(0);
      expect(result.totals.summaryCostUsd).toBeCloseTo(summariesUsd, 12);
      expect(result.totals.costUsd).toBeCloseTo(requestsUsd + result.totals.pingCostUsd + summariesUsd, 12);
      for (const summary of result.summaries) {
        // The route taken is the one priced lower, and both prices are kept.
        const [taken, other] =
          summary.choice === 'fork'
            ? [summary.forkInputCostUsd, summary.freshInputCostUsd]
            : [summary.freshInputCostUsd, summary.forkInputCostUsd];
        expect(taken).not.toBeNull();
        expect(taken!).toBeLessThanOrEqual(other!);
        if (summary.choice === 'fresh') expect(summary.cacheReadTokens).toBe(0);
        // A warm fork reads the parent's prefix: at least 90% of what it sends.
        if (summary.choice === 'fork' && summary.parentWarm) {
          expect(summary.cacheReadTokens).toBeGreaterThan(0.9 * summary.inputTokens);
          expect(summary.costUsd).toBeCloseTo(summary.forkInputCostUsd!, 3);
        }
      }
    }
    // Timed by the cache, the summary runs while the parent is warm and forks; on the thresholds alone it runs cold, fresh.
    expect(timed.summaries.map((summary) => [summary.choice, summary.parentWarm])).toEqual([['fork', true]]);
    expect(thresholdsAlone.summaries.map((summary) => [summary.choice, summary.parentWarm])).toEqual([['fresh', false]]);
  }, 120_000);
});
