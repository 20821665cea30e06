import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { DEFAULT_COMPACTION_OPTIONS } from './options.js';
import { applyReason, emptyPlanVerdict, type SkipPolicyInput, skipPolicy } from './skip-policy.js';

const base: SkipPolicyInput = {
  mandatory: false,
  utilisation: 0.8,
  emergencyThreshold: 0.95,
  tokensBefore: 100_000,
  saved: 30_000,
  requestsSinceLast: Number.POSITIVE_INFINITY,
  minIntervalRequests: 3,
  minSavingShare: 0.1,
  cacheHot: true,
  pays: true,
  breakEvenRequests: 2.5,
  tokensToRebill: 40_000,
  remainingRequests: 20,
};

describe('skipPolicy', () => {
  it('applies a rewrite that saves enough, comes late enough and pays back', () => {
    expect(skipPolicy(base)).toBeNull();
  });

  it('names each skip reason with its figures', () => {
    expect(skipPolicy({ ...base, saved: 0 })).toEqual({ reason: 'nothing-to-do', detail: 'the planned rewrite saves no tokens' });
    expect(skipPolicy({ ...base, requestsSinceLast: 1 })).toEqual({
      reason: 'thrashing',
      detail: '1 request since the last compaction; the minimum is 3',
    });
    expect(skipPolicy({ ...base, saved: 5_000 })).toEqual({
      reason: 'too-little-saving',
      detail: 'saves 5000 of 100000 tokens (5.0%), below the minimum 10.0%',
    });
    expect(skipPolicy({ ...base, pays: false, breakEvenRequests: Number.POSITIVE_INFINITY })).toEqual({
      reason: 'hot-cache',
      detail: 're-billing 40000 tokens to save 30000 per request pays back after never requests; 20 expected',
    });
  });

  it('a cold cache does not wait for the cost model to pay back', () => {
    expect(skipPolicy({ ...base, cacheHot: false, pays: false })).toBeNull();
  });

  it('an emergency overrides thrashing, small savings and a hot cache, but not a rewrite that saves nothing', () => {
    const emergency = { ...base, utilisation: 0.97, requestsSinceLast: 0, saved: 10, pays: false };
    expect(skipPolicy(emergency)).toBeNull();
    expect(skipPolicy({ ...emergency, saved: -5 })?.reason).toBe('nothing-to-do');
  });

  it('a mandatory fix is never skipped, whatever the figures (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          utilisation: fc.double({ min: 0, max: 2, noNaN: true }),
          saved: fc.integer({ min: -50_000, max: 50_000 }),
          requestsSinceLast: fc.integer({ min: 0, max: 10 }),
          cacheHot: fc.boolean(),
          pays: fc.boolean(),
        }),
        (figures) => skipPolicy({ ...base, ...figures, mandatory: true }) === null,
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('a rewrite that does not shrink the request is skipped unless mandatory (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -50_000, max: 0 }), fc.double({ min: 0, max: 2, noNaN: true }), (saved, utilisation) => {
        expect(skipPolicy({ ...base, saved, utilisation })?.reason).toBe('nothing-to-do');
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe('applyReason', () => {
  it('says why an applied rewrite was applied', () => {
    const input = {
      mandatory: false,
      model: 'claude-sonnet-4-5',
      utilisation: 0.8,
      emergencyThreshold: 0.95,
      cacheHot: true,
      breakEvenRequests: 2.46,
      remainingRequests: 20,
      idleMs: 400_000 as number | null,
    };
    expect(applyReason(input)).toBe('pays back after 2.5 of 20 expected requests');
    expect(applyReason({ ...input, cacheHot: false })).toBe('cache is cold (idle 400s); the prefix is written anyway');
    expect(applyReason({ ...input, cacheHot: false, idleMs: null })).toBe(
      'cache is cold (idle since start); the prefix is written anyway',
    );
    expect(applyReason({ ...input, utilisation: 0.96 })).toBe('emergency at 96.0% of the window');
    expect(applyReason({ ...input, mandatory: true })).toMatch(/^model switched to claude-sonnet-4-5/);
  });
});

describe('emptyPlanVerdict', () => {
  const thresholds = DEFAULT_COMPACTION_OPTIONS.thresholds;
  it('is a skip above the light threshold, monitoring between monitor and light, nothing below', () => {
    expect(emptyPlanVerdict(thresholds.full + 0.01, thresholds, true).skipped).toEqual({
      layer: 'priority',
      reason: 'nothing-to-do',
      detail: 'nothing left to compress outside the protected tail',
    });
    expect(emptyPlanVerdict(thresholds.light, thresholds, true).skipped?.layer).toBe('light');
    expect(emptyPlanVerdict(thresholds.monitor, thresholds, true)).toEqual({
      action: 'none',
      reason: 'monitoring; the cache is hot',
      skipped: null,
    });
    expect(emptyPlanVerdict(thresholds.monitor, thresholds, false).reason).toBe('monitoring');
    expect(emptyPlanVerdict(0, thresholds, false)).toEqual({ action: 'none', reason: 'below every threshold', skipped: null });
  });
});
