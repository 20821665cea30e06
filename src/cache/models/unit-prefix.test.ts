import { describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { anthropicBody } from '../test-support/fixtures.js';
import { unitTokens, unitTokenTotals } from '../wire/cache-rules.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { createPrefixHasher, runningTotals, unitPrefixHashes } from './unit-prefix.js';

const turns = (count: number, edit = -1) =>
  Array.from({ length: count }, (_, index) => `turn ${index} ${index === edit ? 'edited ' : ''}${'text '.repeat(20)}`);
/** A session's bodies: growing, an edited history, a switch of role, a shorter body, a new system prompt. */
const bodies = [
  anthropicBody({ turns: turns(1) }),
  anthropicBody({ turns: turns(3), lastBreakpoint: '5m' }),
  anthropicBody({ turns: turns(5), lastBreakpoint: '5m' }),
  anthropicBody({ turns: turns(5, 2), lastBreakpoint: '5m' }),
  anthropicBody({ turns: ['', ...turns(5)] }),
  anthropicBody({ turns: turns(2) }),
  anthropicBody({ turns: turns(4), systemTokens: 10 }),
].map((body) => normalizeWireBody(body, 'anthropic'));

describe('createPrefixHasher', () => {
  it('gives the hashes of unitPrefixHashes for every body of a session, whatever the previous body was', () => {
    const hasher = createPrefixHasher();
    for (const body of bodies) expect(hasher.hashes(body).toArray()).toEqual(unitPrefixHashes(body));
    for (const body of [...bodies].reverse()) expect(hasher.hashes(body).toArray()).toEqual(unitPrefixHashes(body));
  });
});

describe('unitTokenTotals', () => {
  it('equals the running sum of unitTokens, also when the estimator is re-calibrated between bodies', () => {
    const counter = anthropicEstimator();
    const uncalibrated = unitTokenTotals(bodies[0]!, counter).toArray();
    for (const [index, body] of bodies.entries()) {
      if (index === 3) counter.calibrate('some observed text '.repeat(50), 400);
      expect(unitTokenTotals(body, counter).toArray()).toEqual(
        runningTotals(body.units.map((unit) => unitTokens(unit, counter))),
      );
    }
    // A body counted before the re-calibration is counted again with the new scales.
    const recalibrated = unitTokenTotals(bodies[0]!, counter).toArray();
    expect(recalibrated).toEqual(runningTotals(bodies[0]!.units.map((unit) => unitTokens(unit, counter))));
    expect(recalibrated).not.toEqual(uncalibrated);
  });
});
