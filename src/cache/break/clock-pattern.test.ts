import { describe, expect, it } from 'vitest';
import { clockChangedAt } from './clock-pattern.js';

function firstDifference(left: string, right: string): number {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index++;
  return index;
}

function changed(before: string, after: string): boolean {
  return clockChangedAt(before, after, firstDifference(before, after));
}

describe('clockChangedAt', () => {
  it('recognises the usual shapes of a clock in a prompt', () => {
    expect(changed('Now: 2026-11-21T10:00:00Z.', 'Now: 2026-11-21T10:05:00Z.')).toBe(true);
    expect(changed('Date: 2026-11-21', 'Date: 2026-11-22')).toBe(true);
    expect(changed('It is 9:59 PM', 'It is 10:01 PM')).toBe(true);
    expect(changed('Today is Friday, Nov 21, 2026', 'Today is Saturday, Nov 22, 2026')).toBe(true);
    expect(changed('on 21 November 2026', 'on 22 November 2026')).toBe(true);
    expect(changed('ts=1763719200', 'ts=1763719260')).toBe(true);
    expect(changed('ts=1763719200000', 'ts=1763719260000')).toBe(true);
    expect(changed('on 11/21/2026', 'on 11/22/2026')).toBe(true);
  });

  it('does not call other edits a clock', () => {
    expect(changed('cwd: /home/ana/project', 'cwd: /home/bob/project')).toBe(false);
    expect(changed('version 1.2.3', 'version 1.2.4')).toBe(false);
    expect(changed('You have 3 open tasks', 'You have 4 open tasks')).toBe(false);
    // Only one side is date-like: a date replaced by prose is an edit.
    expect(changed('Due 2026-11-21.', 'Due tomorrow.')).toBe(false);
  });
});
