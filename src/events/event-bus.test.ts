import { describe, expect, it } from 'vitest';
import type { CachetEvent } from './catalog.js';
import { EventBus } from './event-bus.js';

const warning = { source: 'test', message: 'hello' };

describe('EventBus listener containment', () => {
  it('a throwing listener neither aborts emit nor keeps the event from the others, and is reported', () => {
    const bus = new EventBus();
    const seen: CachetEvent[] = [];
    bus.on('warning.raised', () => {
      throw new TypeError('exporter is down');
    });
    bus.onAny((event) => seen.push(event));
    const event = bus.emit('warning.raised', 's1', 1_000, warning);
    expect(event.seq).toBe(0);
    expect(seen.map((each) => [each.type, each.seq])).toEqual([
      ['warning.raised', 0],
      ['listener.failed', 1],
    ]);
    expect(seen[1]?.payload).toEqual({
      eventType: 'warning.raised',
      eventSeq: 0,
      subscription: 'warning.raised',
      errorName: 'TypeError',
      message: 'exporter is down',
    });
  });

  it('a listener of listener.failed that throws is contained and not reported again (no loop)', () => {
    const bus = new EventBus();
    let reports = 0;
    bus.onAny(() => {
      throw 'not even an Error';
    });
    bus.on('listener.failed', () => {
      reports += 1;
      throw new Error('the reporter fails too');
    });
    expect(() => bus.emit('warning.raised', 's1', 0, warning)).not.toThrow();
    // One report for the failure on warning.raised; the failures while delivering that report stop there.
    expect(reports).toBe(1);
    expect(bus.emit('warning.raised', 's1', 0, warning).seq).toBe(2);
  });

  it('cuts a huge error message', () => {
    const bus = new EventBus();
    const reports: CachetEvent<'listener.failed'>[] = [];
    bus.on('listener.failed', (event) => reports.push(event));
    bus.on('warning.raised', () => {
      throw new Error('x'.repeat(100_000));
    });
    bus.emit('warning.raised', 's1', 0, warning);
    expect(reports[0]?.payload.message.length).toBe(1_001);
    expect(reports[0]?.payload.errorName).toBe('Error');
  });
});

describe('EventBus sequences', () => {
  it('counts per session and drops a session counter on session.ended', () => {
    const bus = new EventBus();
    for (const sessionId of ['a', 'b']) bus.emit('warning.raised', sessionId, 0, warning);
    expect(bus.emit('warning.raised', 'a', 0, warning).seq).toBe(1);
    expect(bus.trackedSessions).toBe(2);
    expect(bus.emit('session.ended', 'a', 0, { turns: 1, historyMessages: 2 }).seq).toBe(2);
    expect(bus.trackedSessions).toBe(1);
    expect(bus.emit('warning.raised', 'b', 0, warning).seq).toBe(1);
  });

  it('a failing listener on session.ended leaves no counter behind', () => {
    const bus = new EventBus();
    bus.on('session.ended', () => {
      throw new Error('boom');
    });
    bus.emit('warning.raised', 'a', 0, warning);
    bus.emit('session.ended', 'a', 0, { turns: 0, historyMessages: 0 });
    expect(bus.trackedSessions).toBe(0);
  });
});
