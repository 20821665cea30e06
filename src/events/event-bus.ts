import type { CachetEvent, EventPayloads, EventType } from './catalog.js';
import { validatePublishedEvent } from './validate-published-event.js';

export type EventListener<T extends EventType> = (event: CachetEvent<T>) => void;

/**
 * An in-process, synchronous event bus with typed subscribers. There is no global bus: each
 * session (or application) owns one and passes it where events are produced.
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
    this.sequences.set(sessionId, seq + 1);
    for (const key of [type, '*'] as const) {
      const set = this.listeners.get(key);
      if (!set) continue;
      for (const listener of set) listener(event as CachetEvent);
    }
    return event;
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
