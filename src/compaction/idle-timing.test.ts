import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { chooseIdleCompaction, type IdleTimingInput } from './idle-timing.js';

const MINUTE = 60_000;
// Anthropic's standard multipliers: 5-minute write 1.25×, 1-hour write 2×, read 0.1×.
const pricing = { write5m: 1.25, write1h: 2, read: 0.1 };

const base: IdleTimingInput = {
  prefixTokens: 100_000,
  compactedPrefixTokens: 30_000,
  staticTokens: 10_000,
  tokensToRebill: 20_000,
  gapsMs: [20 * MINUTE, 30 * MINUTE, 40 * MINUTE],
  remainingRequests: 20,
  pricing,
};

describe('chooseIdleCompaction', () => {
  it('keeps the cache warm when pauses are just past the TTL, few requests are left and the rewrite saves little', () => {
    const timing = chooseIdleCompaction({
      ...base,
      compactedPrefixTokens: 90_000,
      tokensToRebill: 80_000,
      gapsMs: [6 * MINUTE, 6 * MINUTE, 7 * MINUTE],
      remainingRequests: 3,
      summaryCost: { warm: 5_000, cold: 30_000 },
    });
    expect(timing.choice).toBe('keep-warm');
    expect(timing.keepWarmAction).toBe('ping');
    expect(timing.pings).toBe(1);
    expect(timing.compactAtMs).toBeNull();
    // One ping (10,000 read + 8) and a warm read per gap, then two more reads of the kept prefix.
    expect(timing.expectedCost.keepWarm).toBeCloseTo(10_008 + 10_000 + 20_000, 0);
    expect(timing.expectedCost.keepWarm!).toBeLessThan(timing.expectedCost.compactBeforeExpiry);
  });

  it('compacts while cold when the cold summary call (a fresh call on a cheaper model) costs less than a warm fork', () => {
    const timing = chooseIdleCompaction({ ...base, summaryCost: { warm: 40_000, cold: 15_000 } });
    expect(timing.choice).toBe('compact-while-cold');
    // Every pause outlives the entry: the cold summary, the compacted prefix written once, 19 reads of it.
    expect(timing.expectedCost.compactWhileCold).toBeCloseTo(15_000 + 1.25 * 30_000 + 19 * 0.1 * 30_000, 6);
    expect(timing.expectedCost.compactBeforeExpiry).toBeCloseTo(40_000 + 1.25 * 30_000 + 19 * 0.1 * 30_000, 6);
    expect(timing.compactAtMs).toBeNull();
  });

  it('compacts right before expiry when the summary can still read the parent’s cache and a cold one would write it', () => {
    const timing = chooseIdleCompaction({ ...base, summaryCost: { warm: 10_000, cold: 150_000 }, inputPerMTok: 3 });
    expect(timing.choice).toBe('compact-before-expiry');
    expect(timing.compactAtMs).toBe(5 * MINUTE - 20_000);
    expect(timing.expectedCost.compactBeforeExpiry).toBeLessThan(timing.expectedCost.compactWhileCold);
    expect(timing.expectedCost.compactBeforeExpiry).toBeLessThan(timing.expectedCost.keepWarm ?? Number.POSITIVE_INFINITY);
    expect(timing.expectedCostUsd?.compactBeforeExpiry).toBeCloseTo((timing.expectedCost.compactBeforeExpiry * 3) / 1e6, 12);
    expect(timing.reason).toMatch(/compacting before expiry costs \d+ input-token equivalents less/);
  });

  it('prices a return between the early compaction and expiry as a re-write of the compacted history', () => {
    const late = chooseIdleCompaction({ ...base, gapsMs: [290_000], summaryCost: { warm: 0, cold: 0 } });
    // Compacted at 280 s, back at 290 s: the static zone is read, the rest of the compacted prefix written.
    expect(late.expectedCost.compactBeforeExpiry).toBeCloseTo(0.1 * 10_000 + 1.25 * 20_000 + 19 * 0.1 * 30_000, 6);
    expect(late.choice).not.toBe('compact-before-expiry');
  });

  it('offers no keep-warm where the planner keeps nothing (no pre-warm request, no 1-hour gain)', () => {
    // No pings, and 90-minute pauses outlive a 1-hour entry too.
    const timing = chooseIdleCompaction({ ...base, gapsMs: [90 * MINUTE], prewarming: false });
    expect(timing.keepWarmAction).toBe('let-expire');
    expect(timing.expectedCost.keepWarm).toBeNull();
    expect(timing.choice).not.toBe('keep-warm');
  });

  it('with no gaps learned prices nothing and leaves it to the thresholds (compact while cold)', () => {
    const timing = chooseIdleCompaction({ ...base, gapsMs: [] });
    expect(timing).toMatchObject({ choice: 'compact-while-cold', gapsPriced: 0, expectedCostUsd: null });
  });

  it('refuses bad input with a typed error naming the field', () => {
    expect(() => chooseIdleCompaction({ ...base, remainingRequests: 0 })).toThrow(ValidationError);
    expect(() => chooseIdleCompaction({ ...base, prefixTokens: -1 })).toThrow(/idleTiming\.prefixTokens/);
    expect(() => chooseIdleCompaction({ ...base, summaryCost: { warm: -1, cold: 0 } })).toThrow(/summaryCost\.warm/);
    expect(() => chooseIdleCompaction({ ...base, staticTokens: 40_000 })).toThrow(/idleTiming\.staticTokens/);
  });
});
