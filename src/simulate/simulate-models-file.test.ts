import { describe, expect, it } from 'vitest';
import { parseModelsFile } from '../cache/models-file.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { simulateWorkload } from './simulate-workload.js';

describe('simulateWorkload with models-file rows', () => {
  it('prices and plans with the override: a cheaper read lowers the cost, a lower floor drops the padding', async () => {
    const workload = await loadWorkload('below-minimum');
    const plain = simulateWorkload(workload, { strategy: 'cachet' });
    const { rows } = parseModelsFile(
      '- {provider: anthropic, model: claude-haiku-4-5, inputPerMTok: 1, outputPerMTok: 5, readMultiplier: 0.025, floorTokens: 256}',
      'haiku.yaml',
    );
    const overridden = simulateWorkload(workload, { strategy: 'cachet', models: rows });
    // Below Haiku 4.5's 4,096 floor nothing is cached; at a 256-token floor the prefix is.
    expect(plain.totals.cacheReadTokens).toBe(0);
    expect(overridden.totals.cacheReadTokens).toBeGreaterThan(0);
    expect(overridden.requests.some((request) => request.paddingApplied)).toBe(false);
    expect(overridden.totals.costUsd).not.toBeCloseTo(plain.totals.costUsd, 6);
    // The oracle is priced and bounded with the same rows.
    expect(overridden.totals.regret).toBeGreaterThanOrEqual(0);
  });
});
