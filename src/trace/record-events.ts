import type { CachetEvent, TraceDroppedPayload } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { DeadLetter } from './dead-letter.js';
import { validateEvent } from './event-columns.js';
import { redactEvent, type StoreContent } from './store-content.js';
import type { TraceStore } from './trace-store.js';
import { isEventRejection } from './trace-store-error.js';

export interface RecordEventsOptions {
  /**
   * Called when a batch could not be written because the store is unavailable, with the events
   * of that batch. Return `'drop'` to discard them; by default they stay queued, in order, and
   * are retried with backoff (and on `flush()`). Events the store refuses (invalid values,
   * duplicates) never reach `onError`: they are dead-lettered and writing continues.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: void lets a logging arrow such as `(error) => console.error(error)` be passed as is
  onError?: (error: unknown, events: readonly CachetEvent[]) => 'retry' | 'drop' | void;
  /** Called for each event moved to the store's `dead_letters` table, with why. */
  onDeadLetter?: (event: CachetEvent, reason: string) => void;
  /** Called when the queue is full and events start being dropped (once per overflow episode). */
  onOverflow?: (stats: RecorderStats) => void;
  /** Events written per transaction (default 500). */
  batchSize?: number;
  /**
   * Least time between the starts of two writes, in ms [0]. With 0 a write follows every turn of
   * the event loop that published events. A proxy serving one client at a time publishes one
   * exchange per turn, and each transaction then costs more than the rows it writes; with an
   * interval, events published meanwhile share the next transaction (written as soon as
   * `batchSize` are waiting, and by `flush()` / `stop()` at once). A write after a quiet period
   * is not delayed.
   */
  minWriteIntervalMs?: number;
  /**
   * Most events kept while the store is down or slow (default 100,000, about 25 MB of small
   * events). A full queue drops the arriving event (every session keeps a gap-free start, and
   * events already queued stay in order); drops are counted in `stats` and reported per session
   * by a `trace.dropped` event once the store accepts writes again.
   */
  maxQueuedEvents?: number;
  /**
   * How much prompt content is stored [full]: `hashes` keeps hashes of changed text instead of
   * the text, `none` keeps neither (see `StoreContent`). Applied before events are queued.
   */
  storeContent?: StoreContent;
  /** Retry delays while the store is unavailable: doubles from `initialMs` (100) to `maxMs` (30,000). */
  retryDelay?: { initialMs?: number; maxMs?: number };
}

export interface RecorderStats {
  /** Events received and not yet committed. */
  pending: number;
  /** Events committed to the store. */
  written: number;
  /** Events dropped because the queue was full (or because `onError` said `'drop'`). */
  dropped: number;
  /** Events moved to `dead_letters`. */
  deadLettered: number;
  /** True while writes fail and a retry is scheduled. */
  retrying: boolean;
  queueLimit: number;
}

export interface EventRecorder {
  /**
   * Resolves once every event published so far is committed (or dead-lettered), without waiting
   * for events published meanwhile (under steady traffic it still returns); rejects with the
   * write error if the store is still unavailable (the events stay queued).
   */
  flush(): Promise<void>;
  /** Flush, report drops, unsubscribe from the bus, then write what was published meanwhile. */
  stop(): Promise<void>;
  /** Events received and not yet committed. */
  readonly pending: number;
  readonly stats: RecorderStats;
}

interface QueuedEvent {
  event: CachetEvent;
  /** Set when the event failed validation: it goes to dead letters, in order. */
  invalid?: string;
}

interface SessionDrops {
  dropped: number;
  firstDroppedAt: number;
  lastDroppedAt: number;
}

/**
 * Write every event published on `bus` to `store`, in publication order. The bus is
 * synchronous and the store may not be (PostgreSQL), so events are queued and written in
 * batches by a single writer.
 *
 * Nothing blocks the writer for good: an event the store refuses is moved to the store's
 * `dead_letters` table (read it with `store.deadLetters()`); while the store is unreachable
 * writes are retried with exponential backoff; the queue is bounded (`maxQueuedEvents`), and
 * overflow is counted, reported through `onOverflow` and recorded as `trace.dropped` events.
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
  const queueLimit = options.maxQueuedEvents ?? 100_000;
  const policy: TraceDroppedPayload['policy'] = 'drop-newest';
  const initialDelay = options.retryDelay?.initialMs ?? 100;
  const maxDelay = options.retryDelay?.maxMs ?? 30_000;
  // A ring would avoid the occasional compaction; an array with a moving head is simpler and amortised O(1).
  let queue: QueuedEvent[] = [];
  let head = 0;
  /** Events ever removed from the front: tells a failed drain how much of its batch is done. */
  let removedTotal = 0;
  const size = () => queue.length - head;
  const stats = { written: 0, dropped: 0, deadLettered: 0 };
  const dropsBySession = new Map<string, SessionDrops>();
  let overflowing = false;
  let draining: Promise<void> | null = null;
  let lastError: unknown = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** A drain asked for by newly queued events: after the current turn of the event loop, or the write interval. */
  let drainSoon: { cancel(): void; immediate: boolean } | null = null;
  const minWriteInterval = Math.max(0, options.minWriteIntervalMs ?? 0);
  /** When the last drain started (performance.now()), for `minWriteIntervalMs`. */
  let lastDrainAt = Number.NEGATIVE_INFINITY;
  let delay = initialDelay;

  const removeFront = (count: number) => {
    head += count;
    removedTotal += count;
    if (head > 4096 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  };

  const countDrop = (event: CachetEvent) => {
    stats.dropped += 1;
    const now = Date.now();
    const drops = dropsBySession.get(event.sessionId);
    if (drops) {
      drops.dropped += 1;
      drops.lastDroppedAt = now;
    } else {
      dropsBySession.set(event.sessionId, { dropped: 1, firstDroppedAt: now, lastDroppedAt: now });
    }
    if (!overflowing) {
      overflowing = true;
      options.onOverflow?.(snapshot());
    }
  };

  /** Once there is room again, tell each session how many of its events were lost. */
  const reportDrops = () => {
    if (dropsBySession.size === 0 || size() >= queueLimit / 2) return;
    const reports = [...dropsBySession];
    dropsBySession.clear();
    overflowing = false;
    for (const [sessionId, drops] of reports) {
      bus.emit('trace.dropped', sessionId, Date.now(), { ...drops, queueLimit, policy });
    }
  };

  const deadLetter = async (items: readonly QueuedEvent[], reasons: readonly string[]) => {
    await store.deadLetter(items.map((item, index) => ({ event: item.event, reason: reasons[index]! })));
    stats.deadLettered += items.length;
    for (const [index, item] of items.entries()) options.onDeadLetter?.(item.event, reasons[index]!);
  };

  /**
   * Write `batch` (or its leading part), removing what is done from the queue. When the store
   * refuses it, write the events one by one: the refused ones are dead-lettered. Throws only
   * when the store is unavailable (what is not done stays queued).
   */
  const writeBatch = async (batch: readonly QueuedEvent[]): Promise<void> => {
    const invalidCount = batch.findIndex((item) => item.invalid === undefined);
    if (invalidCount !== 0) {
      const invalid = invalidCount === -1 ? batch : batch.slice(0, invalidCount);
      await deadLetter(
        invalid,
        invalid.map((item) => item.invalid!),
      );
      removeFront(invalid.length);
      return;
    }
    const validEnd = batch.findIndex((item) => item.invalid !== undefined);
    const valid = validEnd === -1 ? batch : batch.slice(0, validEnd);
    try {
      await store.appendBatch(valid.map((item) => item.event));
      stats.written += valid.length;
      removeFront(valid.length);
      return;
    } catch (error) {
      if (!isEventRejection(error)) throw error;
      if (valid.length === 1) {
        await deadLetter(valid, [(error as Error).message]);
        removeFront(1);
        return;
      }
    }
    for (const item of valid) {
      try {
        await store.append(item.event);
        stats.written += 1;
      } catch (error) {
        if (!isEventRejection(error)) throw error;
        await deadLetter([item], [(error as Error).message]);
      }
      removeFront(1);
    }
  };

  const scheduleRetry = () => {
    if (retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void drain();
    }, delay);
    // A pending retry must not keep a finished program alive; `stop()` is how to wait for it.
    retryTimer.unref?.();
    delay = Math.min(delay * 2, maxDelay);
  };

  const drain = (): Promise<void> => {
    if (drainSoon) {
      drainSoon.cancel();
      drainSoon = null;
    }
    if (draining) return draining;
    lastDrainAt = performance.now();
    if (retryTimer) {
      clearTimeout(retryTimer);
      retryTimer = null;
    }
    draining = (async () => {
      // The events queued now (and what shares their batches): events published meanwhile get
      // a drain of their own, so a writer under steady traffic still finishes, and `flush()` with it.
      const end = removedTotal + size();
      while (size() > 0 && removedTotal < end) {
        const batch = queue.slice(head, head + batchSize);
        const removedBefore = removedTotal;
        try {
          await writeBatch(batch);
          lastError = null;
          delay = initialDelay;
          reportDrops();
        } catch (error) {
          lastError = error;
          const remaining = batch.slice(removedTotal - removedBefore);
          if (
            options.onError?.(
              error,
              remaining.map((item) => item.event),
            ) === 'drop'
          ) {
            removeFront(remaining.length);
            stats.dropped += remaining.length;
            continue;
          }
          scheduleRetry();
          return;
        }
      }
      reportDrops();
    })().finally(() => {
      draining = null;
      if (size() > 0 && !retryTimer && !drainSoon) drainSoon = scheduleDrain(lastDrainAt + minWriteInterval - performance.now());
    });
    return draining;
  };

  const storeContent = options.storeContent ?? 'full';
  const unsubscribe = bus.onAny((published) => {
    const event = redactEvent(published, storeContent);
    let invalid: string | undefined;
    try {
      validateEvent(event);
    } catch (error) {
      invalid = (error as Error).message;
    }
    if (size() >= queueLimit) {
      countDrop(event);
      return;
    }
    queue.push(invalid === undefined ? { event } : { event, invalid });
    // While the store is down, the backoff timer decides when to try again, not every new event.
    // Otherwise the write waits for the end of this turn of the event loop (and the rest of the
    // write interval): every event published meanwhile (a proxy exchange publishes two or three,
    // concurrent exchanges more) shares one transaction.
    if (retryTimer) return;
    const full = size() >= batchSize;
    if (drainSoon && (drainSoon.immediate || !full)) return;
    drainSoon?.cancel();
    drainSoon = scheduleDrain(full ? 0 : lastDrainAt + minWriteInterval - performance.now());
  });

  /** A drain after the current turn of the event loop, or after `wait` ms when positive. */
  const scheduleDrain = (wait: number): { cancel(): void; immediate: boolean } => {
    const run = () => {
      drainSoon = null;
      void drain();
    };
    if (wait > 0) {
      const timer = setTimeout(run, wait);
      return { cancel: () => clearTimeout(timer), immediate: false };
    }
    const immediate = setImmediate(run);
    return { cancel: () => clearImmediate(immediate), immediate: true };
  };

  const snapshot = (): RecorderStats => ({
    pending: size(),
    ...stats,
    retrying: retryTimer !== null,
    queueLimit,
  });

  const flush = async (): Promise<void> => {
    // The events published so far, not those published while they are written (under steady
    // traffic the queue never empties). They get their first attempt now; a drain started before
    // a failure may be running: wait for it, and retry what is left once a try makes no progress.
    const target = removedTotal + size();
    let retried = false;
    while (removedTotal < target) {
      const before = removedTotal;
      await drain();
      if (removedTotal > before) continue;
      if (retried) throw lastError ?? new Error('trace events could not be written');
      retried = true;
    }
  };

  return {
    flush,
    async stop() {
      try {
        await flush();
        // Drops reported now are queued by the bus listener; write them before leaving.
        if (dropsBySession.size > 0) {
          reportDrops();
          await flush();
        }
        // Events published while those were written: with the bus no longer adding any, this ends.
        unsubscribe();
        await flush();
      } finally {
        unsubscribe();
        if (retryTimer) clearTimeout(retryTimer);
        retryTimer = null;
        drainSoon?.cancel();
        drainSoon = null;
      }
    },
    get pending() {
      return size();
    },
    get stats() {
      return snapshot();
    },
  };
}

export type { DeadLetter };
