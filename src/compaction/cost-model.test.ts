import { describe, expect, it } from 'vitest';
import { evaluateRewriteCost } from './cost-model.js';

const prices = { write: 1.25, read: 0.1 };

describe('evaluateRewriteCost', () => {
  it('refuses the failure seen in the wild: re-billing 137K tokens on a hot cache to save 6K', () => {
    const cost = evaluateRewriteCost({
      prefixBefore: 150_000,
      prefixAfter: 144_000,
      staticTokens: 7_000,
      tokensToRebill: 137_000,
      cacheHot: true,
      expectedRemainingRequests: 30,
      prices,
    });
    expect(cost.pays).toBe(false);
    // 137K x 1.25 + 7K x 0.1 - 150K x 0.1 = 156,950 token-equivalents now; 600 saved per request.
    expect(cost.extraCostNow).toBeCloseTo(156_950, 6);
    expect(cost.breakEvenRequests).toBeCloseTo(156_950 / 600, 6);
  });

  it('accepts any saving once the cache is cold (the prefix is written anyway)', () => {
    const cost = evaluateRewriteCost({
      prefixBefore: 150_000,
      prefixAfter: 144_000,
      staticTokens: 7_000,
      tokensToRebill: 137_000,
      cacheHot: false,
      expectedRemainingRequests: 0,
      prices,
    });
    expect(cost.pays).toBe(true);
    expect(cost.extraCostNow).toBe(-6_000 * 1.25);
  });

  it('accepts a hot rewrite with a large saving over a long horizon', () => {
    const input = {
      prefixBefore: 150_000,
      prefixAfter: 60_000,
      staticTokens: 7_000,
      tokensToRebill: 53_000,
      cacheHot: true,
      prices,
    };
    expect(evaluateRewriteCost({ ...input, expectedRemainingRequests: 20 }).pays).toBe(true);
    expect(evaluateRewriteCost({ ...input, expectedRemainingRequests: 2 }).pays).toBe(false);
  });
});
