import type { CachetEvent, EventPayloads, EventType } from './catalog.js';
import { validatePublishedEvent } from './validate-published-event.js';

/** Longest error message carried by `listener.failed` (an error can quote a whole payload). */
const MAX_FAILURE_MESSAGE = 1_000;

export type EventListener<T extends EventType> = (event: CachetEvent<T>) => void;

/**
 * An in-process, synchronous event bus with typed subscribers. There is no global bus: each
 * session (or application) owns one and passes it where events are produced.
 *
 * Guarantees:
 * - `emit` never throws because of a listener. A listener that throws is skipped for that event;
 *   the other listeners still receive it, and the failure is published as `listener.failed`
 *   (once: a listener of `listener.failed` that throws in turn is not reported again).
 * - `seq` counts per session from 0 in publication order. A session's counter is dropped when
 *   `session.ended` is published, so a long-lived bus holds nothing for finished sessions; events
 *   published for that session id afterwards start again from 0.
 */
export class EventBus {
  private readonly listeners = new Map<EventType | '*', Set<(event: CachetEvent) => void>>();
  private readonly sequences = new Map<string, number>();

  /** Subscribe to one event type; returns the function that unsubscribes. */
  on<T extends EventType>(type: T, listener: EventListener<T>): () => void {
    return this.add(type, listener as (event: CachetEvent) => void);
  }

  /** Subscribe to every event. */
  onAny(listener: (event: CachetEvent) => void): () => void {
    return this.add('*', listener);
  }

  /**
   * Publish an event; `seq` is assigned per session in publication order. Throws
   * `ValidationError` (and publishes nothing) for an event no store could hold: a BigInt or
   * circular payload, a non-finite `at` — see `validatePublishedEvent`.
   */
  emit<T extends EventType>(type: T, sessionId: string, at: number, payload: EventPayloads[T]): CachetEvent<T> {
    const seq = this.sequences.get(sessionId) ?? 0;
    const event = { type, sessionId, at, seq, payload } as CachetEvent<T>;
    validatePublishedEvent(event);
    if (type === 'session.ended') this.sequences.delete(sessionId);
    else this.sequences.set(sessionId, seq + 1);
    const failures: Array<{ subscription: EventType | '*'; error: unknown }> = [];
    for (const key of [type, '*'] as const) {
      const set = this.listeners.get(key);
      if (!set) continue;
      for (const listener of set) {
        try {
          listener(event as CachetEvent);
        } catch (error) {
          // A failing subscriber (an exporter, a recorder) must not abort the request being prepared.
          failures.push({ subscription: key, error });
        }
      }
    }
    // Reported after every listener has had the event, so each sees events in `seq` order.
    if (type !== 'listener.failed') for (const failure of failures) this.reportFailure(event as CachetEvent, failure);
    return event;
  }

  /** @internal Sessions whose sequence counter is held (a test seam for bounded state). */
  get trackedSessions(): number {
    return this.sequences.size;
  }

  private reportFailure(event: CachetEvent, failure: { subscription: EventType | '*'; error: unknown }): void {
    const { error } = failure;
    const message = error instanceof Error ? error.message : String(error);
    this.emit('listener.failed', event.sessionId, event.at, {
      eventType: event.type,
      eventSeq: event.seq,
      subscription: failure.subscription,
      errorName: error instanceof Error ? error.name : typeof error,
      message: message.length > MAX_FAILURE_MESSAGE ? `${message.slice(0, MAX_FAILURE_MESSAGE)}…` : message,
    });
    // The report of a failure on `session.ended` must not leave a counter behind either.
    if (event.type === 'session.ended') this.sequences.delete(event.sessionId);
  }

  private add(key: EventType | '*', listener: (event: CachetEvent) => void): () => void {
    let set = this.listeners.get(key);
    if (!set) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }
}
