import { describe, expect, it } from 'vitest';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { KEEP_ALIVE_STRATEGIES, STRATEGY_NAMES } from '../simulate/strategy.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { oracleRulesFor } from './oracle-rules.js';

/**
 * The bundled local workload on every family with a real template: the oracle's processed
 * tokens must never exceed a strategy's. Its rules come from the family's template facts
 * (whether the slot's reply is read back, whether framing is the same for every layout), and a
 * fact set wrongly shows up here as negative regret.
 */
describe('hindsight oracle on local engines, per template family', () => {
  const families = [
    { model: 'qwen3-8b', reusesReply: false, fixedFraming: true },
    { model: 'Meta-Llama-3.1-8B-Instruct', reusesReply: true, fixedFraming: true },
    { model: 'gemma-3-4b-it', reusesReply: true, fixedFraming: false },
    { model: 'deepseek-v3', reusesReply: true, fixedFraming: false },
  ];

  it.each(families)('$model: rules from the template facts', ({ model, reusesReply, fixedFraming }) => {
    const rules = oracleRulesFor('openai-compatible', model);
    expect(rules.kind).toBe('local');
    expect({ reusesReply: rules.reusesReply, fixedFraming: rules.fixedFraming }).toEqual({ reusesReply, fixedFraming });
  });

  it.each(families)(
    '$model: no strategy processes fewer tokens than the oracle',
    async ({ model }) => {
      const workload = await loadWorkload('python-app-local');
      // The ideal and the oracle once, as the demo measures every strategy against them.
      const baseline = simulationBaseline(workload, workload.provider, model);
      // The pinging designs never ping a local engine (no pre-warm request): they equal `pi` and `markers` here.
      for (const strategy of STRATEGY_NAMES.filter((name) => !(KEEP_ALIVE_STRATEGIES as readonly string[]).includes(name))) {
        const { totals } = simulateWorkload(workload, { strategy, model, baseline });
        const processed = totals.inputTokens - totals.cacheReadTokens;
        expect(totals.oracleProcessedTokens, `${strategy} on ${model}`).toBeGreaterThan(0);
        expect(processed, `${strategy} on ${model}`).toBeGreaterThanOrEqual(totals.oracleProcessedTokens);
        expect(totals.regret, `${strategy} on ${model}`).toBeGreaterThanOrEqual(0);
      }
    },
    120_000,
  );
});
