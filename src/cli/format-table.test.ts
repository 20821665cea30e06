import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { formatCount, formatCountOf } from './format-table.js';

describe('formatCount', () => {
  it("writes what toLocaleString('en-US') writes", () => {
    const examples = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 123_456_789, Number.MAX_SAFE_INTEGER];
    const odd = [-0, -1, -1234567, 1.5, 1234.5678, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY];
    for (const value of [...examples, ...odd]) expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        expect(formatCount(value)).toBe(value.toLocaleString('en-US'));
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('formatCountOf', () => {
  it('says the noun in the singular for one only', () => {
    expect(formatCountOf(1, 'conversation')).toBe('1 conversation');
    expect(formatCountOf(0, 'conversation')).toBe('0 conversations');
    expect(formatCountOf(2, 'request')).toBe('2 requests');
    expect(formatCountOf(3, 'entry', 'entries')).toBe('3 entries');
  });
});
