import { describe, expect, it } from 'vitest';
import { createAnthropicCacheModel } from '../cache/models/anthropic-cache-model.js';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { validateAnthropicBody } from '../gateway/emulate/validate-anthropic-body.js';
import { ValidationError } from '../model/errors.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { Session } from '../session/session.js';
import { KEEP_WARM_TEXT, KeepWarmUnsupportedError, keepWarmBody, startKeepWarm } from './keep-warm.js';
import { prepareRequest } from './prepare-request.js';
import { manualTimers } from './test-support/manual-timers.js';

const MINUTE = 60_000;
const STANDARD = { write5m: 1.25, write1h: 2, read: 0.1 };

function conversation(bus = new EventBus()) {
  const session = new Session({
    id: 'keep-warm-test',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You review pull requests carefully and briefly. '.repeat(400) }] },
    bus,
    clock: () => Date.parse('2026-11-25T10:00:00Z'),
  });
  session.appendUserText('Review the change to the invoice totals.');
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'The rounding moved to the line level; see below.' }] });
  return session;
}

describe('keepWarmBody', () => {
  it('is a valid Messages request that reads the whole cached prefix and asks for no output', () => {
    const session = conversation();
    const model = createAnthropicCacheModel();
    const previous = prepareRequest(session, anthropicAdapter, { turn: 1, step: 0 }).body;
    model.judge(previous, { at: 0 });
    const body = keepWarmBody(session);
    expect(validateAnthropicBody(body)).toBeNull();
    expect(validateAnthropicBody({ ...body, stream: true })).toBe('max_tokens: 0 cannot be combined with stream');
    expect(body.max_tokens).toBe(0);
    const last = body.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(JSON.stringify(last)).toContain(KEEP_WARM_TEXT);
    expect(JSON.stringify(last)).not.toContain('cache_control');
    const verdict = model.judge(body, { at: 4 * MINUTE });
    expect(verdict.cacheReadTokens).toBeGreaterThan(0.95 * verdict.inputTokens);
    expect(verdict.cacheReadTokens).toBe(model.judge(previous, { at: 8 * MINUTE }).cacheReadTokens);
  });

  it('refuses sessions a pre-warm request cannot serve', () => {
    const thinking = conversation();
    thinking.setParams({ thinking: { type: 'enabled', budgetTokens: 2048 } });
    expect(() => keepWarmBody(thinking)).toThrow(KeepWarmUnsupportedError);
    const empty = new Session({ id: 'empty', model: 'claude-sonnet-4-5', global: { system: [] } });
    expect(() => keepWarmBody(empty)).toThrow('there is no prefix to keep warm');
  });
});

describe('startKeepWarm', () => {
  it('sends the planned pings through the user’s send, each with a cache.keepalive event and its cost', async () => {
    const bus = new EventBus();
    const events: CachetEvent<'cache.keepalive'>[] = [];
    bus.on('cache.keepalive', (event) => events.push(event));
    const sent: unknown[] = [];
    const timers = manualTimers();
    const warm = startKeepWarm(conversation(bus), {
      send: async (body) => void sent.push(body),
      gapsMs: [12 * MINUTE, 13 * MINUTE],
      pricing: STANDARD,
      inputPerMTok: 3,
      timers,
    });
    expect(warm.plan.action).toBe('ping');
    expect(timers.scheduled).toEqual(warm.plan.scheduleMs);
    await timers.runAll();
    expect(sent).toHaveLength(warm.plan.pings);
    expect(events.map((event) => event.payload.ping)).toEqual(sent.map((_, index) => index + 1));
    expect(events.every((event) => event.payload.sent && (event.payload.costUsd ?? 0) > 0)).toBe(true);
    expect(warm.spentUsd).toBeCloseTo(
      events.reduce((total, event) => total + (event.payload.costUsd ?? 0), 0),
      9,
    );
    expect(warm.stoppedBecause).toBe('done');
  });

  it('stops at the budget, when the session moves on, and on stop(); a failing send never throws', async () => {
    const options = { gapsMs: [25 * MINUTE], pricing: STANDARD, inputPerMTok: 3 };
    const budgetTimers = manualTimers();
    const sent: unknown[] = [];
    const budgeted = startKeepWarm(conversation(), {
      ...options,
      send: async (body) => void sent.push(body),
      budgetUsd: 0.0001,
      timers: budgetTimers,
    });
    expect(budgeted.plan.pings).toBeGreaterThan(1);
    await budgetTimers.runAll();
    expect(budgeted.stoppedBecause).toBe('budget');
    expect(sent.length).toBeLessThan(budgeted.plan.pings);

    const movedTimers = manualTimers();
    const session = conversation();
    const moved = startKeepWarm(session, { ...options, send: async () => {}, timers: movedTimers });
    session.appendUserText('Back: what about credit notes?');
    await movedTimers.runAll();
    expect(moved).toMatchObject({ stoppedBecause: 'moved-on', pingsSent: 0 });

    const failures: unknown[] = [];
    const failingTimers = manualTimers();
    const failing = startKeepWarm(conversation(), {
      ...options,
      send: async () => {
        throw new Error('529 overloaded');
      },
      onError: (error) => failures.push(error),
      timers: failingTimers,
    });
    await failingTimers.runAll();
    expect(failing.pingsSent).toBe(0);
    expect(failures.length).toBe(failing.plan.pings);

    const stoppedTimers = manualTimers();
    const stopped = startKeepWarm(conversation(), { ...options, send: async () => {}, timers: stoppedTimers });
    stopped.stop();
    await stoppedTimers.runAll();
    expect(stopped).toMatchObject({ stoppedBecause: 'stopped', pingsSent: 0 });
  });

  it('keeps a live 1-hour entry with one ping just before it expires, priced as a read of it and a re-write of the rest', async () => {
    const session = conversation();
    const sent: unknown[] = [];
    const timers = manualTimers();
    const events: CachetEvent<'cache.keepalive'>[] = [];
    session.bus?.on('cache.keepalive', (event) => events.push(event));
    // Pauses of 75 minutes: twelve short pings reach 56 minutes, the 1-hour entry reaches 60.
    const options = { gapsMs: [75 * MINUTE, 75 * MINUTE], pricing: STANDARD, inputPerMTok: 3, timers };
    const plain = startKeepWarm(conversation(), { ...options, send: async () => {}, timers: manualTimers() });
    expect(plain.plan.action).toBe('let-expire');
    const warm = startKeepWarm(session, {
      ...options,
      send: async (body) => void sent.push(body),
      longEntry: { tokens: 3_000, refreshedAt: session.clock() },
    });
    expect(warm.plan).toMatchObject({ action: 'ping', keeps: 'long-entry', pings: 1 });
    expect(warm.plan.scheduleMs[0]).toBe(60 * MINUTE - 20_000);
    await timers.runAll();
    expect(sent).toHaveLength(1);
    const prefix = events[0]!.payload.prefixTokens;
    expect(prefix).toBeGreaterThan(3_000);
    const expected = ((0.1 * 3_000 + 1.25 * (prefix - 3_000) + 8) * 3) / 1e6;
    expect(events[0]?.payload.costUsd).toBeCloseTo(expected, 12);
  });

  it('refuses a negative budget and a negative long entry', () => {
    expect(() =>
      startKeepWarm(conversation(), {
        send: async () => {},
        gapsMs: [],
        pricing: STANDARD,
        longEntry: { tokens: -1, refreshedAt: 0 },
      }),
    ).toThrow('longEntry.tokens');
    expect(() => startKeepWarm(conversation(), { send: async () => {}, gapsMs: [], pricing: STANDARD, budgetUsd: -1 })).toThrow(
      ValidationError,
    );
  });
});
