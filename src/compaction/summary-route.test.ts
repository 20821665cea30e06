import { describe, expect, it } from 'vitest';
import { chooseSummaryRoute, type SummaryRouteInput } from './summary-route.js';

const base: SummaryRouteInput = {
  provider: 'anthropic',
  mainModel: 'claude-sonnet-4-5',
  auxModel: 'claude-haiku-4-5',
  prefixTokens: 120_000,
  parentWarm: true,
  forkInstructionTokens: 300,
  freshPromptTokens: 110_000,
  expectedOutputTokens: 1_000,
  forkFits: true,
  freshFits: true,
};

describe('chooseSummaryRoute', () => {
  it('forks on a warm Sonnet rather than paying Haiku fresh: a read at 0.1 × $3 beats $1 input', () => {
    const route = chooseSummaryRoute(base);
    expect(route.choice).toBe('fork');
    // 120k × $0.30/M + 300 × $3/M = $0.0369 input; 110k × $1/M = $0.11 input.
    expect(route.forkInputCostUsd).toBeCloseTo(0.0369, 6);
    expect(route.freshInputCostUsd).toBeCloseTo(0.11, 6);
    expect(route.forkCostUsd).toBeCloseTo(0.0369 + 0.015, 6);
    expect(route.freshCostUsd).toBeCloseTo(0.11 + 0.005, 6);
  });

  it('calls the auxiliary model fresh when the parent cache is cold (the fork would write the prefix at 1.25×)', () => {
    const route = chooseSummaryRoute({ ...base, parentWarm: false });
    expect(route.choice).toBe('fresh');
    expect(route.forkInputCostUsd).toBeCloseTo(120_000 * 3.75e-6 + 300 * 3e-6, 6);
  });

  it('prices the fork’s thinking as main-model output: 8,000 thinking tokens on Sonnet tip the warm fork to fresh', () => {
    const route = chooseSummaryRoute({ ...base, forkThinkingTokens: 8_000 });
    // $0.0369 input + (1,000 + 8,000) × $15/M = $0.1719 against $0.115 fresh.
    expect(route.forkCostUsd).toBeCloseTo(0.0369 + 9_000 * 15e-6, 6);
    expect(route.forkInputCostUsd).toBeCloseTo(0.0369, 6);
    expect(route.choice).toBe('fresh');
    expect(route.reason).toContain('8000 thinking tokens included');
  });

  it('follows the windows before the prices, and warmth when a model is unpriced', () => {
    expect(chooseSummaryRoute({ ...base, forkFits: false }).choice).toBe('fresh');
    expect(chooseSummaryRoute({ ...base, parentWarm: false, freshFits: false }).choice).toBe('fork');
    expect(chooseSummaryRoute({ ...base, forkFits: false, freshFits: false }).choice).toBe('none');
    const unpriced = { ...base, provider: 'openai-compatible' as const, mainModel: 'qwen3-8b', auxModel: 'qwen3-0.6b' };
    expect(chooseSummaryRoute(unpriced)).toMatchObject({ choice: 'fork', forkCostUsd: null, freshCostUsd: null });
    expect(chooseSummaryRoute({ ...unpriced, parentWarm: false }).choice).toBe('fresh');
  });
});
