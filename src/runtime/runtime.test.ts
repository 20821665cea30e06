import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { emptyUsage } from '../model/usage.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { Session } from '../session/session.js';
import { prepareRequest } from './prepare-request.js';
import { recordUsage } from './record-usage.js';
import { chooseHistoryTtl } from './ttl-policy.js';

function session(bus: EventBus) {
  const created = new Session({
    id: 'runtime-test',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are a careful assistant. '.repeat(200) }] },
    bus,
    clock: () => Date.parse('2026-05-14T10:00:00Z'),
  });
  created.appendUserText('What changed in the release?');
  return created;
}

describe('prepareRequest / recordUsage', () => {
  it('a throwing subscriber does not abort prepareRequest; its failure is published', () => {
    const bus = new EventBus();
    const failures: CachetEvent<'listener.failed'>[] = [];
    bus.on('listener.failed', (event) => failures.push(event));
    bus.on('request.assembled', () => {
      throw new Error('trace exporter is down');
    });
    const prepared = prepareRequest(session(bus), anthropicAdapter, { turn: 1, step: 0 });
    expect(prepared.body).toBeDefined();
    expect(failures.map((event) => [event.payload.eventType, event.payload.eventSeq, event.payload.message])).toEqual([
      ['request.assembled', prepared.event?.seq, 'trace exporter is down'],
    ]);
  });

  it('passes the assembled request and its zone sizes to adapter options given as a function', () => {
    const current = session(new EventBus());
    const seen: number[] = [];
    const prepared = prepareRequest(current, anthropicAdapter, {
      turn: 1,
      step: 0,
      adapterOptions: ({ request, zoneTokens }) => {
        seen.push(request.blocks.length, zoneTokens.global);
        return { ttl: { history: '1h' as const } };
      },
    });
    expect(seen).toEqual([prepared.request.blocks.length, prepared.zoneTokens.global]);
    // The options the function returned reached the adapter: every breakpoint is raised to 1h.
    expect(prepared.metadata.breakpoints.length).toBeGreaterThan(0);
    expect(prepared.metadata.breakpoints.every((breakpoint) => breakpoint.ttl === '1h')).toBe(true);
  });

  it('assembles, converts and publishes request.assembled with zone sizes, hashes and breakpoints', () => {
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => events.push(event));
    const current = session(bus);
    const prepared = prepareRequest(current, anthropicAdapter, {
      turn: 1,
      step: 0,
      tail: [{ kind: 'time', text: '[current time] 2026-05-14T10:00:00Z', position: 'end' }],
    });
    const event = events.find((candidate) => candidate.type === 'request.assembled');
    expect(event).toBe(prepared.event);
    if (event?.type !== 'request.assembled') throw new Error('no request.assembled');
    expect(event.payload.zoneTokens.global).toBeGreaterThan(1000);
    expect(event.payload.zoneTokens.tail).toBeGreaterThan(0);
    // The first request of a session carries every block; later ones only what is new.
    expect(event.payload.sharedBlocks).toBe(0);
    expect(event.payload.blockCount).toBe(prepared.request.blocks.length);
    expect(event.payload.prefixHash).toBe(prepared.request.blocks.at(-1)?.prefixHash);
    expect(event.payload.blockHashes.map((block) => block.path)).toEqual(prepared.request.blocks.map((block) => block.path));
    expect(event.payload.breakpoints.length).toBeGreaterThan(0);
    expect(JSON.stringify(prepared.body).split('[current time]')).toHaveLength(2);
  });

  it('prices usage and publishes usage.recorded', () => {
    const bus = new EventBus();
    const current = session(bus);
    const usage = { ...emptyUsage(), uncachedInputTokens: 100, cacheReadTokens: 1000 };
    const recorded = recordUsage(current, usage, {
      turn: 1,
      step: 0,
      price: (priced) => ({ costUsd: priced.cacheReadTokens * 1e-7, uncachedCostUsd: 1 }),
    });
    expect(recorded.costUsd).toBeCloseTo(1e-4, 12);
    expect(recorded.event?.payload).toMatchObject({ turn: 1, step: 0, model: 'claude-sonnet-4-5', uncachedCostUsd: 1 });
  });
});

describe('chooseHistoryTtl', () => {
  it('stays at 5 minutes until the session has paused between 5 and 60 minutes', () => {
    expect(chooseHistoryTtl({ gapsMs: [30_000, 40_000], prefixTokens: 50_000, newTokens: 500 }).ttl).toBe('5m');
    expect(chooseHistoryTtl({ gapsMs: [30_000, 7 * 60_000], prefixTokens: 50_000, newTokens: 500 }).ttl).toBe('1h');
  });

  it('keeps 5 minutes when the 1-hour premium on new tokens outweighs the expected re-write', () => {
    const gaps = [...Array.from({ length: 99 }, () => 20_000), 10 * 60_000];
    expect(chooseHistoryTtl({ gapsMs: gaps, prefixTokens: 2_000, newTokens: 5_000 }).ttl).toBe('5m');
  });

  it('starts on 1 hour when gaps from earlier sessions show pauses, and the session still counts', () => {
    const priorGapsMs = [30_000, 12 * 60_000, 45_000, 20 * 60_000];
    expect(chooseHistoryTtl({ gapsMs: [], prefixTokens: 50_000, newTokens: 20_000 }).ttl).toBe('5m');
    const seeded = chooseHistoryTtl({ gapsMs: [], priorGapsMs, prefixTokens: 50_000, newTokens: 20_000 });
    expect(seeded).toMatchObject({ ttl: '1h', pauseShare: 0.5 });
    expect(seeded.reason).toContain('4 from earlier sessions');
    // Many quick gaps in this session dilute the prior until the premium no longer pays.
    const quick = Array.from({ length: 96 }, () => 20_000);
    expect(chooseHistoryTtl({ gapsMs: quick, priorGapsMs, prefixTokens: 10_000, newTokens: 5_000 }).ttl).toBe('5m');
  });

  it('ignores gaps longer than an hour (no TTL survives them)', () => {
    expect(chooseHistoryTtl({ gapsMs: [2 * 3_600_000], prefixTokens: 50_000, newTokens: 10 }).ttl).toBe('5m');
  });
});

describe('block deltas in request.assembled', () => {
  it('carries only the blocks after the prefix shared with the previous request', async () => {
    const { BlockDeltaTracker, sharedPrefixLength } = await import('./block-delta.js');
    const { Session } = await import('../session/session.js');
    const { assemble } = await import('../session/assemble.js');
    const session = new Session({
      id: 'delta',
      model: 'claude-sonnet-5',
      global: { system: [{ label: 'persona', text: 'Be brief.' }] },
    });
    session.appendUserText('first question');
    const first = assemble(session, { tail: [{ kind: 'time', text: 'now: 10:00', position: 'end' }] });
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'first answer' }] });
    session.appendUserText('second question');
    const second = assemble(session, { tail: [{ kind: 'time', text: 'now: 10:05', position: 'end' }] });

    // Computed independently: walk both block lists until the prefix hashes differ.
    let expectedShared = 0;
    while (first.blocks[expectedShared]?.prefixHash === second.blocks[expectedShared]?.prefixHash) expectedShared++;
    expect(expectedShared).toBe(first.blocks.length - 1); // everything but the old tail
    expect(sharedPrefixLength(first.blocks, second.blocks)).toBe(expectedShared);

    const tracker = new BlockDeltaTracker();
    expect(tracker.next(session, first.blocks).blockHashes).toHaveLength(first.blocks.length);
    const delta = tracker.next(session, second.blocks);
    expect(delta.sharedBlocks).toBe(expectedShared);
    expect(delta.blockCount).toBe(second.blocks.length);
    expect(delta.blockHashes.map((block) => block.path)).toEqual(second.blocks.slice(expectedShared).map((block) => block.path));
    expect(delta.blockHashes.map((block) => block.zone)).toEqual(['history', 'history', 'tail']);

    // Given the requests themselves, the tracker reads their records without copying the history.
    const third = assemble(session, { tail: [{ kind: 'time', text: 'now: 10:05', position: 'end' }] });
    const fromRequests = new BlockDeltaTracker();
    expect(fromRequests.next(session, first)).toEqual(new BlockDeltaTracker().next(session, first.blocks));
    expect(fromRequests.next(session, third)).toEqual(delta);
    expect(Object.getOwnPropertyDescriptor(third, 'blocks')?.get).toBeTypeOf('function');
  });
});
