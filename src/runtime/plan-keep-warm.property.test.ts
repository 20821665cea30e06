import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { type KeepWarmInput, type KeepWarmPlan, planKeepWarm } from './plan-keep-warm.js';
import { joinGaps, SortedGaps } from './sorted-gaps.js';
import { referencePlanKeepWarm } from './test-support/plan-keep-warm-reference.js';

const MINUTE = 60_000;

/**
 * Gaps and times on a 10-second grid, so gaps land exactly on the thresholds (ping times, the
 * short and long entries' ends, the hour) as often as between them.
 */
const grid = (max: number) => fc.integer({ min: 0, max }).map((steps) => steps * 10_000);
const inputs: fc.Arbitrary<KeepWarmInput> = fc.record(
  {
    prefixTokens: fc.integer({ min: 0, max: 300_000 }),
    gapsMs: fc.array(fc.oneof(grid(800), fc.double({ min: 0, max: 9e6, noNaN: true })), { maxLength: 40 }),
    idleMs: fc.oneof(fc.constant(0), grid(100)),
    ttlMs: fc.constantFrom(5 * MINUTE, 60 * MINUTE, 2 * MINUTE),
    marginMs: fc.constantFrom(20_000, 0, MINUTE),
    pricing: fc.record({
      read: fc.constantFrom(0.1, 0.025, 0.5),
      write5m: fc.constantFrom(1.25, 1, 0.1),
      write1h: fc.constantFrom(2, 1.25, 1),
    }),
    inputPerMTok: fc.constantFrom(3, 15),
    pingOverheadTokens: fc.constantFrom(8, 0, 200),
    maxPings: fc.integer({ min: 0, max: 13 }),
    protectedTokens: fc.integer({ min: 0, max: 300_000 }),
    protectedForMs: grid(720),
    protectedTtlMs: fc.constantFrom(60 * MINUTE, 30 * MINUTE),
  },
  { requiredKeys: ['prefixTokens', 'gapsMs', 'pricing'] },
);

/** The plan without its floating-point costs (compared apart, to the last bits the sum order may change). */
function decisions(plan: KeepWarmPlan) {
  const { expectedCost, expectedSaving, expectedSavingUsd, reason, ...rest } = plan;
  return rest;
}

function expectSameCost(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(expected)));
}

describe('planKeepWarm priced piece by piece over sorted gaps', () => {
  it('decides as the per-gap evaluation did, with the same costs up to summation order', () => {
    const examples: [KeepWarmInput][] = [
      // Ties: gaps on the ping times, on the entry's end, on the hour; and a live 1-hour entry.
      [
        {
          prefixTokens: 80_000,
          gapsMs: [280_000, 300_000, 560_000, 3_600_000, 0],
          pricing: { read: 0.1, write5m: 1.25, write1h: 2 },
        },
      ],
      [
        {
          prefixTokens: 200_000,
          gapsMs: [40 * MINUTE, 50 * MINUTE, 30_000, 70 * MINUTE],
          pricing: { read: 0.1, write5m: 1.25, write1h: 2 },
          protectedTokens: 150_000,
          protectedForMs: 45 * MINUTE,
        },
      ],
      // No 1-hour premium: the 1-hour write and letting it expire cost exactly the same.
      [{ prefixTokens: 10_000, gapsMs: [30_000, 60_000], pricing: { read: 0.1, write5m: 1, write1h: 1 } }],
    ];
    fc.assert(
      fc.property(inputs, (input) => {
        const plan = planKeepWarm(input);
        const reference = referencePlanKeepWarm(input);
        expect(decisions(plan)).toEqual(decisions(reference));
        expectSameCost(plan.expectedCost.letExpire, reference.expectedCost.letExpire);
        expectSameCost(plan.expectedCost.ping, reference.expectedCost.ping);
        expectSameCost(plan.expectedCost.write1h, reference.expectedCost.write1h);
        expectSameCost(plan.expectedSaving, reference.expectedSaving);
      }),
      { numRuns: propertyRuns(400), examples },
    );
  });

  it('gives the same plan, to the bit, from an array, a SortedGaps and two joined sets grown one gap at a time', () => {
    fc.assert(
      fc.property(inputs, fc.nat(), (input, cut) => {
        const gaps = input.gapsMs as number[];
        const split = gaps.length === 0 ? 0 : cut % (gaps.length + 1);
        const prior = new SortedGaps(gaps.slice(0, split));
        const session = new SortedGaps();
        for (const gap of gaps.slice(split)) session.add(gap);
        const fromArray = planKeepWarm(input);
        expect(planKeepWarm({ ...input, gapsMs: new SortedGaps(gaps) })).toEqual(fromArray);
        expect(planKeepWarm({ ...input, gapsMs: joinGaps(prior, session) })).toEqual(fromArray);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});

describe('SortedGaps', () => {
  it('counts as a filter over the gaps would, whatever order they are added in', () => {
    fc.assert(
      fc.property(fc.array(grid(50)), grid(60), (gaps, at) => {
        const sorted = new SortedGaps();
        for (const gap of gaps) sorted.add(gap);
        expect(sorted.size).toBe(gaps.length);
        expect(sorted.countAtMost(at)).toBe(gaps.filter((gap) => gap <= at).length);
        const above = gaps.filter((gap) => gap > at);
        expect(sorted.firstAbove(at)).toBe(above.length === 0 ? undefined : Math.min(...above));
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('names a bad gap by its place, added or given', () => {
    const gaps = new SortedGaps([1, 2]);
    expect(() => gaps.add(-1)).toThrow(/gapsMs\[2\]/);
    expect(() => new SortedGaps([5, Number.NaN], 'priorGapsMs')).toThrow(/priorGapsMs\[1\]/);
  });
});
