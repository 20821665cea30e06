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

/**
 * Attacks on the recorder as `cachet proxy` runs it (writes at most every 50 ms, events sharing
 * one transaction): nothing published is lost on stop, an invalid or duplicate event costs only
 * itself, a store failure mid-batch loses nothing, and flush() returns under steady traffic.
 */

/** `cachet proxy`'s interval (PROXY_TRACE_WRITE_INTERVAL_MS in gateway/proxy/start-proxy.ts, above this layer). */
const PROXY_TRACE_WRITE_INTERVAL_MS = 50;

const directory = mkdtempSync(join(tmpdir(), 'cachet-recorder-attacks-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let stores = 0;

/** A real SQLite store whose batch writes can be made slow (a remote database) or fail a number of times. */
function attackableStore(): { store: TraceStore; real: TraceStore; failBatches: { value: number }; slowMs: { value: number } } {
  const real = openSqliteTraceStore(join(directory, `store-${stores++}.db`));
  const failBatches = { value: 0 };
  const slowMs = { value: 0 };
  const store = new Proxy(real, {
    get(target, property, receiver) {
      if (property === 'appendBatch') {
        return async (events: CachetEvent[]) => {
          if (slowMs.value > 0) await new Promise((resolve) => setTimeout(resolve, slowMs.value));
          if (failBatches.value > 0) {
            failBatches.value -= 1;
            throw new TraceStoreError('store_unavailable', target.location, 'connection reset');
          }
          return target.appendBatch(events);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return { store, real, failBatches, slowMs };
}

const turns = async (store: TraceStore, sessionId: string) =>
  (await store.events({ sessionId })).map((event) => (event.payload as { turn: number }).turn);

describe('recordEvents with the proxy’s write interval', () => {
  it('stop() writes what waits for the interval', async () => {
    const { store, real } = attackableStore();
    const bus = new EventBus();
    const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
    bus.emit('turn.started', 'first', 0, { turn: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    // Within the interval of the first write: these wait for the next one.
    for (let turn = 1; turn <= 20; turn++) bus.emit('turn.started', 'first', turn, { turn });
    await recorder.stop();
    expect(await turns(real, 'first')).toEqual(Array.from({ length: 21 }, (_, turn) => turn));
    await real.close();
  });

  it('an invalid and a duplicate event in one batch cost only themselves', async () => {
    const { store, real } = attackableStore();
    // Another writer already holds seq 3 of the session: the batch's seq 3 is a duplicate.
    await real.append({ type: 'turn.started', sessionId: 'mixed', seq: 3, at: 0, payload: { turn: 99 } } as CachetEvent);
    const bus = new EventBus();
    const deadLetters: string[] = [];
    const recorder = recordEvents(bus, store, {
      minWriteIntervalMs: 3_600_000,
      onDeadLetter: (event, reason) => deadLetters.push(`${event.seq}: ${reason.slice(0, 40)}`),
    });
    bus.emit('turn.started', 'other', 0, { turn: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 6; turn++) {
      // The bus accepts a payload the store's schema refuses (a negative turn): it must not take the batch with it.
      bus.emit('turn.started', 'mixed', turn, { turn: turn === 1 ? -1 : turn });
    }
    await recorder.stop();
    expect(await turns(real, 'mixed')).toEqual([0, 2, 99, 4, 5]);
    expect(deadLetters.map((letter) => letter.split(':')[0])).toEqual(['1', '3']);
    expect(recorder.stats).toMatchObject({ written: 5, deadLettered: 2, dropped: 0, pending: 0 });
    await real.close();
  });

  it('a store failure mid-batch loses nothing and keeps the order', async () => {
    const { store, real, failBatches } = attackableStore();
    const bus = new EventBus();
    const errors: number[] = [];
    const recorder = recordEvents(bus, store, {
      minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS,
      batchSize: 4,
      retryDelay: { initialMs: 1, maxMs: 2 },
      onError: (_error, events) => {
        errors.push(events.length);
      },
    });
    for (let turn = 0; turn < 3; turn++) bus.emit('turn.started', 'unsteady', turn, { turn });
    await recorder.flush();
    // The next writes fail twice (a dropped connection), then the store is back: the backoff retries on its own.
    failBatches.value = 2;
    for (let turn = 3; turn < 10; turn++) bus.emit('turn.started', 'unsteady', turn, { turn });
    while (recorder.pending > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    for (let turn = 10; turn < 12; turn++) bus.emit('turn.started', 'unsteady', turn, { turn });
    await recorder.stop();
    expect(errors.length).toBeGreaterThan(0);
    expect(await turns(real, 'unsteady')).toEqual(Array.from({ length: 12 }, (_, turn) => turn));
    await real.close();
  });

  it('flush() returns under steady traffic to a slow store, with every event published before it written', async () => {
    const { store, real, slowMs } = attackableStore();
    slowMs.value = 2;
    const bus = new EventBus();
    const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
    let turn = 0;
    // A publisher that never pauses longer than a write takes: the queue is never empty when a write ends.
    const traffic = setInterval(() => bus.emit('turn.started', 'steady', turn, { turn: turn++ }), 1);
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const published = turn;
      let returned = false;
      const flushed = recorder.flush().then(() => {
        returned = true;
      });
      // Not a timing assertion: without the fix flush() never returns while the traffic runs.
      for (let wait = 0; wait < 1000 && !returned; wait++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(returned).toBe(true);
      await flushed;
      expect((await turns(real, 'steady')).length).toBeGreaterThanOrEqual(published);
    } finally {
      clearInterval(traffic);
    }
    const last = turn;
    await recorder.stop();
    expect(await turns(real, 'steady')).toEqual(Array.from({ length: last }, (_, index) => index));
    await real.close();
  });
});
