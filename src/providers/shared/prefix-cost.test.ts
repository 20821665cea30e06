import { describe, expect, it } from 'vitest';
import { prefixCost } from './prefix-cost.js';

const prices = { write: 1.25, read: 0.1 };

describe('prefixCost', () => {
  it('bills a prefix below the floor at full price on every request', () => {
    expect(prefixCost({ requests: 10, prefixTokens: 265, growthTokensPerRequest: 0, floorTokens: 4096, prices })).toBe(2650);
  });

  it('writes once and reads afterwards above the floor', () => {
    // 5,000 × 1.25 + 2 × 5,000 × 0.1
    expect(prefixCost({ requests: 3, prefixTokens: 5000, growthTokensPerRequest: 0, floorTokens: 4096, prices })).toBe(7250);
  });

  it('starts caching once growth lifts the prefix over the floor', () => {
    // 4,000 uncached; 4,200 written; 4,200 read + 200 written.
    const cost = prefixCost({ requests: 3, prefixTokens: 4000, growthTokensPerRequest: 200, floorTokens: 4096, prices });
    expect(cost).toBeCloseTo(4000 + 4200 * 1.25 + 4200 * 0.1 + 200 * 1.25, 6);
  });
});
