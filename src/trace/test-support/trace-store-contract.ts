import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import { LATEST_SCHEMA_VERSION } from '../migrations.js';
import { recordEvents } from '../record-events.js';
import type { TraceStore } from '../trace-store.js';
import { TraceStoreError } from '../trace-store-error.js';
import { sampleEvents, T0 } from './sample-events.js';

/** What the shared suite needs from a backend: a fresh, empty location per test. */
export interface TraceStoreHarness {
  /** A new empty location; `open` may be called on it several times (reopening). */
  fresh(): Promise<{ open(): Promise<TraceStore>; exec(sql: string): Promise<void> }>;
}

type UsageEvent = CachetEvent<'usage.recorded'>;

/** Independent expectation: plain sums over the usage events, computed without the store. */
function expectedSums(events: CachetEvent[], keep: (event: UsageEvent) => boolean) {
  const usageEvents = events.filter((event): event is UsageEvent => event.type === 'usage.recorded' && keep(event as UsageEvent));
  const sum = (pick: (event: UsageEvent) => number) => usageEvents.reduce((total, event) => total + pick(event), 0);
  const read = sum((event) => event.payload.usage.cacheReadTokens);
  const written = sum((event) => event.payload.usage.cacheWrite5mTokens + event.payload.usage.cacheWrite1hTokens);
  const uncached = sum((event) => event.payload.usage.uncachedInputTokens);
  const cost = sum((event) => event.payload.costUsd);
  const uncachedCost = sum((event) => event.payload.uncachedCostUsd);
  return { requests: usageEvents.length, read, written, uncached, total: read + written + uncached, cost, uncachedCost };
}

export function describeTraceStoreContract(name: string, harness: () => TraceStoreHarness): void {
  describe(`${name} trace store (shared contract)`, () => {
    async function withStore<T>(body: (store: TraceStore) => Promise<T>): Promise<T> {
      const location = await harness().fresh();
      const store = await location.open();
      try {
        return await body(store);
      } finally {
        await store.close();
      }
    }

    it('migrates a new database to the latest schema version and reopens without re-migrating', async () => {
      const location = await harness().fresh();
      const first = await location.open();
      expect(first.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
      await first.appendBatch(sampleEvents().slice(0, 3));
      await first.close();
      const second = await location.open();
      expect(second.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
      expect(await second.events()).toHaveLength(3);
      await second.close();
    });

    it('refuses a database whose schema is newer than this version knows', async () => {
      const location = await harness().fresh();
      await (await location.open()).close();
      await location.exec(
        `INSERT INTO cachet_migrations (version, name, applied_at) VALUES (${LATEST_SCHEMA_VERSION + 1}, 'future', 0)`,
      );
      await expect(location.open()).rejects.toMatchObject({ code: 'schema_too_new' });
    });

    it('round-trips every event exactly, in session and seq order', async () => {
      await withStore(async (store) => {
        const events = sampleEvents();
        for (const event of events.slice(0, 4)) await store.append(event);
        await store.appendBatch(events.slice(4));
        const stored = await store.events();
        const expected = [...events].sort((left, right) => left.sessionId.localeCompare(right.sessionId) || left.seq - right.seq);
        expect(stored).toEqual(expected);
      });
    });

    it('filters events by session, type, time range, seq and limit', async () => {
      await withStore(async (store) => {
        const events = sampleEvents();
        await store.appendBatch(events);
        const breaks = await store.events({ types: ['cache.break'] });
        expect(breaks.map((event) => event.sessionId)).toEqual(['s-alpha', 's-beta']);
        const alphaUsage = await store.events({ sessionId: 's-alpha', types: ['usage.recorded', 'skill.loaded'] });
        expect(alphaUsage.map((event) => event.type)).toEqual([
          'usage.recorded',
          'skill.loaded',
          'usage.recorded',
          'skill.loaded',
          'usage.recorded',
        ]);
        const early = await store.events({ to: T0 + 2000 });
        expect(early.every((event) => event.at <= T0 + 2000)).toBe(true);
        expect(early).toHaveLength(events.filter((event) => event.at <= T0 + 2000).length);
        const later = await store.events({ sessionId: 's-beta', afterSeq: 3 });
        expect(later.map((event) => event.seq)).toEqual([4, 5, 6]);
        expect(await store.events({ limit: 2 })).toHaveLength(2);
      });
    });

    it('rejects a batch containing an already stored event and stores nothing of it', async () => {
      await withStore(async (store) => {
        const events = sampleEvents();
        await store.appendBatch(events.slice(0, 2));
        const error = await store.appendBatch(events.slice(1, 5)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(TraceStoreError);
        expect((error as TraceStoreError).code).toBe('duplicate_event');
        expect(await store.events()).toHaveLength(2);
      });
    });

    it('rejects malformed events with a ValidationError naming the field', async () => {
      await withStore(async (store) => {
        const [started, , , usage] = sampleEvents();
        const broken = structuredClone(usage) as CachetEvent<'usage.recorded'>;
        (broken.payload.usage as { cacheReadTokens: unknown }).cacheReadTokens = -5;
        const error = await store.appendBatch([started!, broken]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).path).toBe('events[1].payload.usage.cacheReadTokens');
        await expect(store.append({ ...started!, sessionId: '' })).rejects.toThrow(/event\.sessionId|events\[0\]\.sessionId/);
        expect(await store.events()).toHaveLength(0);
      });
    });

    it('summarises sessions with sums that match the events', async () => {
      await withStore(async (store) => {
        const events = sampleEvents();
        await store.appendBatch(events);
        const sessions = await store.sessions();
        expect(sessions.map((session) => session.sessionId)).toEqual(['s-beta', 's-alpha']);
        for (const session of sessions) {
          const expected = expectedSums(events, (event) => event.sessionId === session.sessionId);
          const own = events.filter((event) => event.sessionId === session.sessionId);
          expect(session.events).toBe(own.length);
          expect(session.requests).toBe(expected.requests);
          expect(session.tokens.cacheRead).toBe(expected.read);
          expect(session.tokens.cacheWrite).toBe(expected.written);
          expect(session.tokens.totalInput).toBe(expected.total);
          expect(session.costUsd).toBeCloseTo(expected.cost, 10);
          expect(session.hitRate).toBeCloseTo(expected.read / expected.total, 10);
          expect(session.firstAt).toBe(Math.min(...own.map((event) => event.at)));
          expect(session.lastAt).toBe(Math.max(...own.map((event) => event.at)));
        }
        const alpha = sessions.find((session) => session.sessionId === 's-alpha')!;
        expect(alpha).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic', strategy: 'cachet', cacheBreaks: 1 });
        expect(await store.sessions({ limit: 1, offset: 1 })).toEqual([alpha]);
      });
    });

    it('lists sessions last active at the same time most recently recorded first (a re-run demo on top)', async () => {
      await withStore(async (store) => {
        const rerun = (sessionId: string) =>
          sampleEvents()
            .filter((event) => event.sessionId === 's-alpha')
            .map((event) => ({ ...event, sessionId }));
        await store.appendBatch(rerun('run-a'));
        await store.appendBatch(rerun('run-b'));
        expect((await store.sessions()).map((session) => session.sessionId)).toEqual(['run-b', 'run-a']);
      });
    });

    it('lists the requests of a session with their breaks attached by turn and step', async () => {
      await withStore(async (store) => {
        await store.appendBatch(sampleEvents());
        const requests = await store.requests('s-alpha');
        expect(requests.map((request) => [request.index, request.turn, request.step])).toEqual([
          [0, 1, 0],
          [1, 2, 0],
          [2, 3, 0],
        ]);
        // Second request: 150 uncached + 2000 read + 200 written = 2350 input, hit rate 2000/2350.
        expect(requests[1]!.tokens).toEqual({
          uncachedInput: 150,
          cacheRead: 2000,
          cacheWrite5m: 200,
          cacheWrite1h: 0,
          cacheWrite: 200,
          output: 80,
          totalInput: 2350,
        });
        expect(requests[1]!.hitRate).toBeCloseTo(2000 / 2350, 12);
        expect(requests[1]!.breaks).toEqual([]);
        expect(requests[2]!.breaks).toEqual([
          { cause: 'clock', zone: 'system', path: 'system[1]', missedTokens: 2200, serverCause: null },
        ]);
        expect(await store.requests('no-such-session')).toEqual([]);
      });
    });

    it('computes cache effectiveness overall, per session and per model, with filters', async () => {
      await withStore(async (store) => {
        const events = sampleEvents();
        await store.appendBatch(events);
        const report = await store.cacheEffectiveness();
        const all = expectedSums(events, () => true);
        expect(report.overall.requests).toBe(all.requests);
        expect(report.overall.hitRate).toBeCloseTo(all.read / all.total, 12);
        expect(report.overall.cacheWriteShare).toBeCloseTo(all.written / all.total, 12);
        expect(report.overall.savingsUsd).toBeCloseTo(all.uncachedCost - all.cost, 12);

        const alpha = report.sessions.find((session) => session.sessionId === 's-alpha')!;
        // alpha wrote 2000 + 200 + 2400 = 4600 of 6950 input tokens over 3 requests: above 1/3, unhealthy.
        expect(alpha.tokens.cacheWrite).toBe(4600);
        expect(alpha.tokens.totalInput).toBe(6950);
        expect(alpha.healthyWriteShareLimit).toBeCloseTo(1 / 3, 12);
        expect(alpha.healthy).toBe(false);
        const beta = report.sessions.find((session) => session.sessionId === 's-beta')!;
        expect(beta.cacheWriteShare).toBe(0);
        expect(beta.healthy).toBe(true);
        expect(report.models.map((model) => model.model).sort()).toEqual(['claude-sonnet-4-5', 'gpt-5']);
        expect(report.breaks).toEqual([
          { cause: 'clock', count: 1, missedTokens: 2200 },
          { cause: 'tool-order', count: 1, missedTokens: 2800 },
        ]);

        const gpt = await store.cacheEffectiveness({ model: 'gpt-5' });
        expect(gpt.overall.requests).toBe(3);
        expect(gpt.sessions.map((session) => session.sessionId)).toEqual(['s-beta']);
        expect(gpt.breaks).toEqual([{ cause: 'tool-order', count: 1, missedTokens: 2800 }]);

        const firstMinute = await store.cacheEffectiveness({ from: T0, to: T0 + 59_999 });
        const expectedFirstMinute = expectedSums(events, (event) => event.at >= T0 && event.at <= T0 + 59_999);
        expect(firstMinute.overall.requests).toBe(expectedFirstMinute.requests);
        expect(firstMinute.overall.tokens.totalInput).toBe(expectedFirstMinute.total);

        const empty = await store.cacheEffectiveness({ sessionId: 'nobody' });
        expect(empty.overall).toMatchObject({ requests: 0, hitRate: 0, cacheWriteShare: 0, savingsUsd: 0, firstAt: null });
      });
    });

    it('rolls skills up by load reason and by skill', async () => {
      await withStore(async (store) => {
        await store.appendBatch(sampleEvents());
        const report = await store.skills();
        expect(report.byReason).toEqual([
          { loadReason: 'always', loads: 1, loadTokens: 300, distinctSkills: 1, sessions: 1 },
          { loadReason: 'auto_suggested', loads: 1, loadTokens: 300, distinctSkills: 1, sessions: 1 },
          { loadReason: 'on_demand', loads: 1, loadTokens: 500, distinctSkills: 1, sessions: 1 },
        ]);
        expect(report.bySkill.map((row) => `${row.skillId}/${row.loadReason}`)).toEqual([
          'git/always',
          'git/auto_suggested',
          'pdf/on_demand',
        ]);
        const alphaOnly = await store.skills({ model: 'claude-sonnet-4-5' });
        expect(alphaOnly.byReason.map((row) => row.loadReason)).toEqual(['always', 'on_demand']);
      });
    });

    it('records every event published on a bus, in order, through recordEvents', async () => {
      await withStore(async (store) => {
        const bus = new EventBus();
        const recorder = recordEvents(bus, store, { batchSize: 7 });
        const published: CachetEvent[] = [];
        bus.onAny((event) => published.push(event));
        for (let index = 0; index < 60; index += 1) {
          bus.emit('warning.raised', `s-${index % 3}`, T0 + index, { source: 'test', message: `warning ${index}` });
        }
        await recorder.stop();
        expect(recorder.pending).toBe(0);
        const stored = await store.events();
        expect(stored).toHaveLength(60);
        for (const sessionId of ['s-0', 's-1', 's-2']) {
          expect(stored.filter((event) => event.sessionId === sessionId)).toEqual(
            published.filter((event) => event.sessionId === sessionId),
          );
        }
      });
    });

    it('stores seq at and beyond 2^31, turns past 2^31 and sub-millisecond times exactly', async () => {
      await withStore(async (store) => {
        const at = 1_795_262_400_123.456;
        const big = 2 ** 31 + 5;
        const events: CachetEvent[] = [
          { type: 'turn.started', sessionId: 'wide', seq: 2 ** 31, at, payload: { turn: big } },
          { type: 'turn.started', sessionId: 'wide', seq: Number.MAX_SAFE_INTEGER, at: at + 0.001, payload: { turn: 1 } },
        ];
        await store.appendBatch(events);
        expect(await store.events({ sessionId: 'wide' })).toEqual(events);
        expect(await store.events({ sessionId: 'wide', from: at + 0.0005 })).toEqual([events[1]]);
      });
    });

    it('refuses an events() limit outside 1..10,000 instead of lifting the cap', async () => {
      await withStore(async (store) => {
        await store.appendBatch(sampleEvents().slice(0, 3));
        for (const limit of [-1, 0, 1.5, 10_001, Number.NaN]) {
          await expect(store.events({ limit }), String(limit)).rejects.toBeInstanceOf(ValidationError);
        }
        expect(await store.events({ limit: 2 })).toHaveLength(2);
      });
    });

    it('keeps dead letters readable, BigInt and circular payloads included', async () => {
      await withStore(async (store) => {
        const cycle: Record<string, unknown> = { n: 1n };
        cycle.self = cycle;
        await store.deadLetter([
          {
            event: { type: 'warning.raised', sessionId: 'x', seq: 0, at: 1, payload: cycle },
            reason: 'circular \u0000 and BigInt',
          },
        ]);
        const [letter] = await store.deadLetters();
        // PostgreSQL text cannot hold NUL: there it is kept escaped.
        expect(['circular \u0000 and BigInt', 'circular \\u0000 and BigInt']).toContain(letter!.reason);
        expect(JSON.parse(letter!.event)).toEqual({
          type: 'warning.raised',
          sessionId: 'x',
          seq: 0,
          at: 1,
          payload: { n: '1n', self: '[Circular]' },
        });
        expect(await store.deadLetters({ afterId: letter!.id })).toEqual([]);
      });
    });

    it('dead-letters what the store refuses and keeps writing the events behind it', async () => {
      await withStore(async (store) => {
        const bus = new EventBus();
        const dead: string[] = [];
        const recorder = recordEvents(bus, store, {
          batchSize: 50,
          onDeadLetter: (event, reason) => dead.push(`${event.seq} ${reason}`),
        });
        bus.emit('turn.started', 'r', T0, { turn: 1 });
        // Passes the bus (JSON-representable) but not the store's column rules: a negative token count.
        bus.emit('usage.recorded', 'r', T0 + 1, {
          turn: 1,
          step: 0,
          model: 'm',
          usage: {
            uncachedInputTokens: -1,
            cacheReadTokens: 0,
            cacheWrite5mTokens: 0,
            cacheWrite1hTokens: 0,
            outputTokens: 0,
            reasoningTokens: 0,
            raw: {},
          },
          costUsd: 0,
          uncachedCostUsd: 0,
        });
        await recorder.flush();
        // A second bus on the same session repeats seq 0: a duplicate the store refuses.
        const replay = new EventBus();
        const stopReplay = recordEvents(replay, store, { onDeadLetter: (event, reason) => dead.push(`${event.seq} ${reason}`) });
        replay.emit('turn.started', 'r', T0 + 2, { turn: 9 });
        await stopReplay.stop();
        for (let turn = 2; turn <= 5; turn += 1) bus.emit('turn.started', 'r', T0 + turn * 10, { turn });
        await recorder.stop();
        expect(dead).toHaveLength(2);
        expect(dead[0]).toMatch(/^1 .*usage\.uncachedInputTokens/);
        expect(dead[1]).toMatch(/^0 .*same sessionId and seq/);
        expect((await store.events({ sessionId: 'r' })).map((event) => event.seq)).toEqual([0, 2, 3, 4, 5]);
        expect(recorder.stats).toMatchObject({ written: 5, deadLettered: 1, dropped: 0, pending: 0 });
        expect((await store.deadLetters()).map((letter) => JSON.parse(letter.event).seq)).toEqual([1, 0]);
      });
    });

    it('keeps events queued through a failed write and commits them on retry', async () => {
      await withStore(async (store) => {
        let failuresLeft = 1;
        const flaky = new Proxy(store, {
          get(target, property, receiver) {
            if (property === 'appendBatch') {
              return async (events: readonly CachetEvent[]) => {
                if (failuresLeft > 0) {
                  failuresLeft -= 1;
                  throw new Error('connection reset');
                }
                return target.appendBatch(events);
              };
            }
            return Reflect.get(target, property, receiver);
          },
        });
        const bus = new EventBus();
        const errors: string[] = [];
        const recorder = recordEvents(bus, flaky, {
          onError: (error) => {
            errors.push((error as Error).message);
            return 'retry';
          },
        });
        bus.emit('turn.started', 's', T0, { turn: 1 });
        await expect(recorder.flush()).resolves.toBeUndefined();
        bus.emit('turn.started', 's', T0 + 1, { turn: 2 });
        await recorder.stop();
        expect(errors).toEqual(['connection reset']);
        expect((await store.events()).map((event) => event.seq)).toEqual([0, 1]);
      });
    });
  });
}
