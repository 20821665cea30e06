/**
 * `npm run bench -- trace-queue` (issue 13 §1): 300,000 events published while the trace
 * store is down. Before the queue was bounded the heap grew by ~107 MB; now it stops at
 * `maxQueuedEvents` and the rest are counted as dropped. Prints heap growth and counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachetEvent } from '../src/events/catalog.js';
import { EventBus } from '../src/events/event-bus.js';
import { recordEvents } from '../src/trace/record-events.js';
import { openSqliteTraceStore } from '../src/trace/sqlite-trace-store.js';
import { TraceStoreError } from '../src/trace/trace-store-error.js';

const EVENTS = 300_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const directory = mkdtempSync(join(tmpdir(), 'cachet-queue-bench-'));
try {
  for (const maxQueuedEvents of [10_000, 100_000]) {
    const real = openSqliteTraceStore(join(directory, `queue-${maxQueuedEvents}.db`));
    let down = true;
    const store = new Proxy(real, {
      get(target, property, receiver) {
        if (property === 'appendBatch') {
          return async (events: CachetEvent[]) => {
            if (down) throw new TraceStoreError('store_unavailable', target.location, 'connection refused');
            return target.appendBatch(events);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const bus = new EventBus();
    const before = heapMb();
    const recorder = recordEvents(bus, store, { maxQueuedEvents, retryDelay: { initialMs: 60_000 } });
    const started = performance.now();
    for (let index = 0; index < EVENTS; index += 1) {
      bus.emit('warning.raised', `session-${index % 20}`, Date.now(), { source: 'bench', message: `event ${index} while down` });
    }
    const publishMs = performance.now() - started;
    const grown = heapMb() - before;
    const { pending, dropped } = recorder.stats;
    console.log(
      `maxQueuedEvents ${maxQueuedEvents}: ${EVENTS} published in ${publishMs.toFixed(0)} ms, queued ${pending}, dropped ${dropped}, heap +${grown.toFixed(1)} MB (${((grown * 1024 * 1024) / Math.max(1, pending)).toFixed(0)} B per queued event)`,
    );
    down = false;
    const drainStarted = performance.now();
    await recorder.stop();
    const reports = await real.events({ types: ['trace.dropped'], limit: 100 });
    console.log(
      `  store back: ${recorder.stats.written} written in ${(performance.now() - drainStarted).toFixed(0)} ms, ${reports.length} trace.dropped events recorded`,
    );
    console.log(
      `${pending === maxQueuedEvents && dropped === EVENTS - maxQueuedEvents ? 'PASS' : 'MISS'}  queue stops at its bound`,
    );
    await real.close();
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
