import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { recordEvents } from './record-events.js';
import { openSqliteTraceStore } from './sqlite-trace-store.js';
import type { TraceStore } from './trace-store.js';
import { TraceStoreError } from './trace-store-error.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-recorder-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;

/** A real SQLite store whose writes fail as if the database were down while `down.value` is true. */
function switchableStore(): { store: TraceStore; down: { value: boolean }; attempts: { value: number } } {
  counter += 1;
  const real = openSqliteTraceStore(join(directory, `store-${counter}.db`));
  const down = { value: false };
  const attempts = { value: 0 };
  const store = new Proxy(real, {
    get(target, property, receiver) {
      if (property === 'appendBatch' || property === 'append') {
        return async (events: CachetEvent[] | CachetEvent) => {
          attempts.value += 1;
          if (down.value) throw new TraceStoreError('store_unavailable', target.location, 'connection refused');
          return property === 'append' ? target.append(events as CachetEvent) : target.appendBatch(events as CachetEvent[]);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return { store, down, attempts };
}

const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('recordEvents while the store is down', () => {
  it('bounds the queue, counts what it drops and records a trace.dropped event per session once the store is back', async () => {
    const { store, down } = switchableStore();
    const bus = new EventBus();
    const overflows: number[] = [];
    const recorder = recordEvents(bus, store, {
      maxQueuedEvents: 1000,
      batchSize: 100,
      retryDelay: { initialMs: 1, maxMs: 5 },
      onOverflow: (stats) => overflows.push(stats.pending),
    });
    down.value = true;
    for (let index = 0; index < 30_000; index += 1) {
      bus.emit('warning.raised', `s-${index % 2}`, index, { source: 'load', message: `event ${index}` });
    }
    expect(recorder.pending).toBe(1000);
    expect(recorder.stats).toMatchObject({ dropped: 29_000, queueLimit: 1000 });
    expect(overflows).toEqual([1000]);
    await expect(recorder.flush()).rejects.toThrow(/connection refused/);

    down.value = false;
    await recorder.stop();
    const stored = await store.events({ types: ['warning.raised'] });
    // The queue kept the first 1000 events, in order: each session keeps a gap-free start.
    expect(stored).toHaveLength(1000);
    const dropped = (await store.events({ types: ['trace.dropped'] })) as CachetEvent<'trace.dropped'>[];
    expect(dropped.map((event) => [event.sessionId, event.seq, event.payload.dropped])).toEqual([
      ['s-0', 15_000, 14_500],
      ['s-1', 15_000, 14_500],
    ]);
    expect(dropped[0]!.payload).toMatchObject({ queueLimit: 1000, policy: 'drop-newest' });
    await store.close();
  });

  it('retries with backoff on its own and writes everything once the store is back, without flush()', async () => {
    const { store, down, attempts } = switchableStore();
    const bus = new EventBus();
    const recorder = recordEvents(bus, store, { retryDelay: { initialMs: 2, maxMs: 20 } });
    down.value = true;
    for (let turn = 0; turn < 50; turn += 1) bus.emit('turn.started', 'backoff', turn, { turn });
    await until(() => attempts.value >= 4);
    expect(recorder.stats.retrying).toBe(true);
    // New events while retrying do not each trigger a write attempt.
    const before = attempts.value;
    for (let turn = 50; turn < 100; turn += 1) bus.emit('turn.started', 'backoff', turn, { turn });
    expect(attempts.value).toBe(before);
    down.value = false;
    await until(async () => recorder.pending === 0);
    expect((await store.events({ sessionId: 'backoff' })).map((event) => event.seq)).toEqual(
      Array.from({ length: 100 }, (_, index) => index),
    );
    await recorder.stop();
    await store.close();
  });
});

describe('recordEvents with a write interval', () => {
  it('writes after a quiet period at once, then lets events share the next write until the interval, a full batch or flush()', async () => {
    const { store, attempts } = switchableStore();
    const bus = new EventBus();
    // An interval no test run reaches: every write below is the quiet-period one, a full batch, or flush().
    const recorder = recordEvents(bus, store, { minWriteIntervalMs: 3_600_000, batchSize: 10 });
    const nextTurns = () => new Promise((resolve) => setTimeout(resolve, 20));
    bus.emit('turn.started', 'window', 0, { turn: 0 });
    await until(() => attempts.value === 1);
    expect(recorder.stats.written).toBe(1);

    for (let turn = 1; turn <= 3; turn += 1) {
      bus.emit('turn.started', 'window', turn, { turn });
      await nextTurns();
    }
    expect(attempts.value).toBe(1);
    expect(recorder.pending).toBe(3);

    for (let turn = 4; turn <= 12; turn += 1) bus.emit('turn.started', 'window', turn, { turn });
    await until(() => recorder.pending === 0);
    // A full batch is written without waiting for the interval (ten events), and that drain writes the two after it.
    expect(recorder.stats.written).toBe(13);
    expect(attempts.value).toBe(3);

    bus.emit('turn.started', 'window', 13, { turn: 13 });
    await nextTurns();
    expect(recorder.pending).toBe(1);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    const stored = await store.events({ types: ['turn.started'] });
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 14 }, (_, seq) => seq));
    await recorder.stop();
    await store.close();
  });
});
