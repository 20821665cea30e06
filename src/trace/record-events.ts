import type { CachetEvent } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import { validateEvent } from './event-columns.js';
import type { TraceStore } from './trace-store.js';

export interface RecordEventsOptions {
  /**
   * Called when a batch could not be written, with the events of that batch. Return `'drop'`
   * to discard them (e.g. duplicates after a replay); by default they stay queued, in order,
   * and are retried on the next event or `flush()`. Also called (with one event) for an
   * event that fails validation: such an event can never be stored and is not queued.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: void lets a logging arrow such as `(error) => console.error(error)` be passed as is
  onError?: (error: unknown, events: readonly CachetEvent[]) => 'retry' | 'drop' | void;
  /** Events written per transaction (default 500). */
  batchSize?: number;
}

export interface EventRecorder {
  /** Resolves once every event published so far is committed; rejects with the write error otherwise. */
  flush(): Promise<void>;
  /** Unsubscribe from the bus, then flush. */
  stop(): Promise<void>;
  /** Events received and not yet committed. */
  readonly pending: number;
}

/**
 * Write every event published on `bus` to `store`, in publication order. The bus is
 * synchronous and the store may not be (PostgreSQL), so events are queued and written in
 * batches by a single writer; nothing is dropped unless `onError` says so.
 *
 * @example
 * const store = await openTraceStore();
 * const recorder = recordEvents(bus, store, { onError: (error) => console.error(error) });
 * // ... run the agent ...
 * await recorder.stop();
 * await store.close();
 */
export function recordEvents(bus: EventBus, store: TraceStore, options: RecordEventsOptions = {}): EventRecorder {
  const batchSize = options.batchSize ?? 500;
  const queue: CachetEvent[] = [];
  let draining: Promise<void> | null = null;
  let lastError: unknown = null;

  const drain = (): Promise<void> => {
    if (draining) return draining;
    draining = (async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, batchSize);
        try {
          await store.appendBatch(batch);
          queue.splice(0, batch.length);
          lastError = null;
        } catch (error) {
          lastError = error;
          if (options.onError?.(error, batch) === 'drop') {
            queue.splice(0, batch.length);
            continue;
          }
          return;
        }
      }
    })().finally(() => {
      draining = null;
    });
    return draining;
  };

  const unsubscribe = bus.onAny((event) => {
    try {
      validateEvent(event);
    } catch (error) {
      options.onError?.(error, [event]);
      return;
    }
    queue.push(event);
    void drain();
  });

  const flush = async (): Promise<void> => {
    // A drain started before a failure may be running; wait for it, then retry what is left once.
    if (draining) await draining;
    if (queue.length > 0) await drain();
    if (queue.length > 0) throw lastError ?? new Error('trace events could not be written');
  };

  return {
    flush,
    async stop() {
      unsubscribe();
      await flush();
    },
    get pending() {
      return queue.length;
    },
  };
}
