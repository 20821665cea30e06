import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { addGap, tallyGaps } from './gap-tally.js';
import { chooseHistoryTtl, type TtlPolicyInput } from './ttl-policy.js';

const MINUTE = 60_000;
// Gaps around the thresholds that matter: seconds, just under and over 5 minutes, pauses, past an hour.
const gap = fc.oneof(
  fc.integer({ min: 1_000, max: 4 * MINUTE }),
  fc.integer({ min: 5 * MINUTE - 2_000, max: 5 * MINUTE + 2_000 }),
  fc.integer({ min: 6 * MINUTE, max: 59 * MINUTE }),
  fc.integer({ min: 60 * MINUTE - 2_000, max: 90 * MINUTE }),
);
const gaps = fc.array(gap, { maxLength: 40 });

/** The statistics as the policy read them from the lists before tallies: filters and a sum. */
function referenceTally(list: readonly number[]) {
  const pauses = list.filter((each) => each > 5 * MINUTE && each <= 60 * MINUTE);
  // A ping every 5 minutes less the 20 s margin keeps the entry through what outlasts 5 minutes.
  const pings = pauses.reduce((total, each) => total + Math.ceil((each - 5 * MINUTE) / (5 * MINUTE - 20_000)), 0);
  return { count: list.length, pauses: pauses.length, pingsThroughPauses: pings };
}

describe('chooseHistoryTtl on gap tallies', () => {
  it('chooses as on the lists, reason included, with tallies built at once or one gap at a time, each as the lists count it', () => {
    fc.assert(
      fc.property(
        gaps,
        fc.option(gaps, { nil: undefined }),
        fc.option(gaps, { nil: undefined }),
        fc.boolean(),
        fc.integer({ min: 1_000, max: 200_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: undefined }),
        (own, prior, kind, keepWarm, prefixTokens, newTokens, growth) => {
          const base: Omit<TtlPolicyInput, 'gapsMs'> = {
            prefixTokens,
            newTokens: Math.min(newTokens, prefixTokens),
            keepWarm,
            ...(growth === undefined ? {} : { expectedGrowthTokens: growth }),
          };
          const onLists = chooseHistoryTtl({
            ...base,
            gapsMs: own,
            ...(prior ? { priorGapsMs: prior } : {}),
            ...(kind ? { kindGapsMs: kind } : {}),
          });
          const grown = tallyGaps();
          for (const each of own) addGap(grown, each);
          const onTallies = chooseHistoryTtl({
            ...base,
            gapsMs: grown,
            ...(prior ? { priorGapsMs: tallyGaps(prior) } : {}),
            ...(kind ? { kindGapsMs: tallyGaps(kind) } : {}),
          });
          expect(onTallies).toEqual(onLists);
          expect(grown).toEqual(referenceTally(own));
        },
      ),
      {
        numRuns: propertyRuns(300),
        examples: [[[6 * MINUTE, 30_000], [20 * MINUTE], [30_000, 7 * MINUTE], true, 50_000, 1_000, 800]],
      },
    );
  });

  it('counts a pause as longer than 5 minutes and at most an hour, with the pings through it', () => {
    expect(tallyGaps([5 * MINUTE, 5 * MINUTE + 1, 60 * MINUTE, 60 * MINUTE + 1, 30_000])).toEqual({
      count: 5,
      pauses: 2,
      // 1 ms past 5 minutes takes one ping; an hour takes ceil(55 min / 4 min 40 s) = 12.
      pingsThroughPauses: 1 + 12,
    });
  });
});
