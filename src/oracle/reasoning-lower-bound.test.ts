import { describe, expect, it } from 'vitest';
import { simulateWorkload, simulationModel } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { STRATEGY_NAMES } from '../simulate/strategy.js';
import { loadWorkload } from '../workloads/load-workload.js';

/**
 * The coding-agent workload replies with reasoning. Most wires drop it from later requests
 * (Gemini, Chat Completions, unsigned thinking on Anthropic); DeepSeek sends back only the
 * reasoning of tool-call turns. An oracle that counts reasoning the wire never sends pays for
 * tokens no strategy sends, and stops being a lower bound (it did on these two providers).
 */
describe('hindsight oracle: reasoning counted as the wire sends it', () => {
  it.each(['deepseek', 'gemini'] as const)(
    'coding-agent on %s: no strategy costs less than the oracle',
    async (provider) => {
      const workload = await loadWorkload('coding-agent');
      // The ideal and the oracle once, as the demo measures every strategy against them.
      const baseline = simulationBaseline(workload, provider, simulationModel(workload, provider));
      for (const strategy of STRATEGY_NAMES) {
        const { totals } = simulateWorkload(workload, { strategy, provider, baseline });
        expect(totals.oracleCostUsd, strategy).not.toBeNull();
        expect(totals.costUsd, `${strategy} on ${provider}`).toBeGreaterThanOrEqual(totals.oracleCostUsd!);
      }
    },
    120_000,
  );
});
