import { describe, expect, it } from 'vitest';
import { chooseDeferredToolPlacement } from './choose-deferred-tool-placement.js';

describe('chooseDeferredToolPlacement', () => {
  const base = { deferredTokens: 900, loadedTokens: 600, expectedRequests: 20, pricing: { write: 1.25, read: 0.1 } };
  it('declares up front when loads would re-write a large prefix', () => {
    expect(chooseDeferredToolPlacement({ ...base, expectedLoads: 3, expectedPrefixTokensAtLoad: 8000 }).placement).toBe(
      'upfront',
    );
  });
  it('appends when the library is large and loads are rare and early', () => {
    const choice = chooseDeferredToolPlacement({
      ...base,
      deferredTokens: 40_000,
      loadedTokens: 300,
      expectedLoads: 1,
      expectedPrefixTokensAtLoad: 2000,
    });
    expect(choice.placement).toBe('append');
    expect(choice.appendCost).toBeLessThan(choice.upfrontCost);
  });
});
