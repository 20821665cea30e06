import { describe, expect, it } from 'vitest';
import { showsPresentClock } from './clock-pattern.js';
import { createVolatileSystemTracker, systemParagraphs, volatileOnSight } from './volatile-system.js';

const persona = 'You are Forge.\n\nAlways run the tests.';

describe('volatile system paragraphs', () => {
  it('paragraphs join back to the text, separators included', () => {
    const text = 'a\n\nb\n \n\nc\n';
    expect(
      systemParagraphs(text)
        .map((entry) => entry.text + entry.separator)
        .join(''),
    ).toBe(text);
  });

  it('on sight: a labelled present date or time, a recalled-memory heading; not a fixed date or a weekday word', () => {
    expect(volatileOnSight('Current time: 2026-11-27T10:00:00Z')).toBe('clock');
    expect(volatileOnSight('Today is November 27, 2026.')).toBe('clock');
    expect(volatileOnSight('Relevant memories:\n- likes tea')).toBe('memory-recall');
    expect(volatileOnSight('<memories>\nlikes tea\n</memories>')).toBe('memory-recall');
    expect(volatileOnSight('Knowledge cutoff 2025-01.')).toBeNull();
    expect(showsPresentClock('Monitor the build on Saturday.')).toBe(false);
    expect(volatileOnSight('Use the memory tool to save notes.')).toBeNull();
  });

  it('moves the clock from the first call and keeps the static remainder byte-stable', () => {
    const tracker = createVolatileSystemTracker();
    const first = tracker.split([`${persona}\n\nCurrent time: 2026-11-27T10:00:00Z`]);
    const second = tracker.split([`${persona}\n\nCurrent time: 2026-11-27T10:05:00Z`]);
    expect(first.texts).toEqual([persona]);
    expect(second.texts).toEqual([persona]);
    expect(first.moved.map((entry) => [entry.cause, entry.detectedBy, entry.changedSinceMoved])).toEqual([
      ['clock', 'sight', false],
    ]);
    expect(second.moved[0]).toMatchObject({ changedSinceMoved: true, paragraph: 2 });
    expect(second.moved[0]!.key).not.toBe(first.moved[0]!.key);
  });

  it('an unrecognised paragraph moves once it changes, and stays moved when it repeats', () => {
    const tracker = createVolatileSystemTracker();
    const with_ = (task: string) => [`${persona}\n\nTask focus: ${task}\n\nBe brief.`];
    expect(tracker.split(with_('parser')).moved).toEqual([]);
    const changed = tracker.split(with_('lexer'));
    expect(changed.texts).toEqual([`${persona}\n\nBe brief.`]);
    expect(changed.moved).toMatchObject([{ text: 'Task focus: lexer', cause: 'system-changed', detectedBy: 'change' }]);
    expect(tracker.split(with_('lexer')).texts).toEqual([`${persona}\n\nBe brief.`]);
    expect(tracker.split(with_('parser')).moved).toMatchObject([{ text: 'Task focus: parser', changedSinceMoved: true }]);
  });

  it('a clock that changed inside a paragraph is named clock by the detector’s rule', () => {
    const tracker = createVolatileSystemTracker();
    tracker.split([`${persona}\n\nSession opened at 10:00 on the build box`]);
    const next = tracker.split([`${persona}\n\nSession opened at 10:05 on the build box`]);
    expect(next.moved.map((entry) => entry.cause)).toEqual(['clock']);
  });

  it('a text with nothing volatile comes back as it was', () => {
    const tracker = createVolatileSystemTracker();
    const text = `${persona}\n\n\n`;
    expect(tracker.split([text, 'second']).texts).toEqual([text, 'second']);
  });
});
