import { describe, expect, it } from 'vitest';
import { wouldPassBudget } from './budget.js';

describe('wouldPassBudget', () => {
  it('lets a budget of exactly n equal spends take all n (0.1 + 0.1 + 0.1 > 0.3 in floating point)', () => {
    for (const [each, count] of [
      [0.1, 3],
      [0.01, 6],
      [0.07, 7],
      [0.002, 10],
      [0.003, 30],
    ] as const) {
      let spent = 0;
      let taken = 0;
      const budget = Number((each * count).toFixed(12));
      while (!wouldPassBudget(spent, each, budget)) {
        spent += each;
        taken += 1;
      }
      expect(taken).toBe(count);
    }
  });

  it('stops a spend that passes the budget by a fraction of a cent', () => {
    expect(wouldPassBudget(0.029, 0.0011, 0.03)).toBe(true);
    expect(wouldPassBudget(0, 0.0000001, 0)).toBe(true);
    expect(wouldPassBudget(0, 0, 0)).toBe(false);
  });
});
