import { describe, expect, it } from 'vitest';
import { fitBreakpointBudget } from './breakpoint-budget.js';

describe('fitBreakpointBudget', () => {
  it('keeps the first candidates up to the limit and warns for each one dropped', () => {
    const candidates = ['a', 'b', 'c', 'd', 'e', 'f'].map((path) => ({ path, source: path === 'f' ? 'history' : 'caller' }));
    const { kept, warnings } = fitBreakpointBudget(candidates, 4);
    expect(kept.map((candidate) => candidate.path)).toEqual(['a', 'b', 'c', 'd']);
    expect(warnings.map((warning) => [warning.code, warning.path])).toEqual([
      ['too-many-breakpoints', 'e'],
      ['too-many-breakpoints', 'f'],
    ]);
  });

  it('collapses duplicates, warning only for caller duplicates', () => {
    const { kept, warnings } = fitBreakpointBudget(
      [
        { path: 'x', source: 'caller' },
        { path: 'x', source: 'global-static' },
        { path: 'x', source: 'caller' },
      ],
      4,
    );
    expect(kept).toHaveLength(1);
    expect(warnings.map((warning) => warning.code)).toEqual(['duplicate']);
  });
});
