import { describe, expect, it } from 'vitest';
import { mulberry32 } from './mulberry32.js';

describe('mulberry32', () => {
  it('gives the reference sequence for a seed (the generated workloads and captures depend on it)', () => {
    const random = mulberry32(1);
    // mulberry32(1) starts 0.6270739405881613, 0.002735721180215478, …: pinned as 32-bit integers.
    expect([random(), random(), random()].map((value) => Math.round(value * 4_294_967_296))).toEqual([
      2_693_262_067, 11_749_833, 2_265_367_787,
    ]);
  });

  it('repeats for the same seed and stays in [0, 1)', () => {
    const first = mulberry32(42);
    const second = mulberry32(42);
    for (let draw = 0; draw < 1_000; draw++) {
      const value = first();
      expect(value).toBe(second());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
});
