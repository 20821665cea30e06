import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { Session } from '../session/session.js';
import { startKeepWarm } from './keep-warm.js';
import { manualTimers } from './test-support/manual-timers.js';

const MINUTE = 60_000;
const STANDARD = { write5m: 1.25, write1h: 2, read: 0.1 };

function conversation(bus: EventBus) {
  const session = new Session({
    id: 'keep-warm-failure',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You review pull requests carefully and briefly. '.repeat(400) }] },
    bus,
    clock: () => Date.parse('2026-11-25T10:00:00Z'),
  });
  session.appendUserText('Review the change to the invoice totals.');
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'The rounding moved to the line level.' }] });
  return session;
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
});

/**
 * "A failing ping never breaks the conversation": nor does the caller's own error handler failing
 * on it. A ping runs on a timer, so anything it throws is an unhandled rejection, which ends a
 * Node process by default — the conversation with it.
 */
describe('startKeepWarm when a ping fails and the error handler throws too', () => {
  it.each([
    ['send rejects', async () => Promise.reject(new Error('529 overloaded'))],
    [
      'send throws before returning a promise',
      () => {
        throw new Error('socket closed');
      },
    ],
  ] as const)('%s: no unhandled rejection, every ping still reported, the schedule goes on', async (_, send) => {
    process.on('unhandledRejection', onUnhandled);
    const bus = new EventBus();
    const events: CachetEvent<'cache.keepalive'>[] = [];
    bus.on('cache.keepalive', (event) => events.push(event));
    const warnings: string[] = [];
    bus.on('warning.raised', (event) => warnings.push(event.payload.message));
    const session = conversation(bus);
    const timers = manualTimers();
    const calls: unknown[] = [];
    const warm = startKeepWarm(session, {
      gapsMs: [9 * MINUTE, 10 * MINUTE, 11 * MINUTE],
      pricing: STANDARD,
      inputPerMTok: 3,
      send,
      timers,
      onError: (error) => {
        calls.push(error);
        throw new Error('the logger is down');
      },
    });
    expect(warm.plan.action).toBe('ping');
    await timers.runAll();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(unhandled).toEqual([]);
    expect(calls).toHaveLength(warm.plan.pings);
    expect(events.map((event) => event.payload.sent)).toEqual(Array(warm.plan.pings).fill(false));
    expect(warm).toMatchObject({ pingsSent: 0, stoppedBecause: 'done' });
    expect(warnings).toHaveLength(warm.plan.pings);
    expect(warnings[0]).toContain('the logger is down');
    // The conversation goes on as if nothing had been pinged.
    session.appendUserText('Back: what about credit notes?');
    expect(session.history.length).toBe(3);
  });
});
