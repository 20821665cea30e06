import type { CachetEvent, EventPayloads, EventType } from '../events/catalog.js';
import type { Session } from '../session/session.js';
import type { OffloadRecord } from './offload-store.js';

/** Publishes one event of a pipeline call (on the session's bus, when it has one). */
export type StageEmit = <T extends EventType>(type: T, payload: EventPayloads[T]) => void;

/**
 * The emitter of one `beforeRequest` call: every event is stamped with the request's time and
 * collected in `events` (the decision returns them), whether or not the session has a bus.
 */
export function createRequestEmitter(session: Session, now: number, events: CachetEvent[]): StageEmit {
  return (type, payload) => {
    const event =
      session.bus?.emit(type, session.id, now, payload) ??
      ({ type, sessionId: session.id, at: now, seq: -1, payload } as CachetEvent<typeof type>);
    events.push(event as CachetEvent);
  };
}

/** The emitter of `ingest`: events are stamped with the session's clock when they happen. */
export function createIngestEmitter(session: Session): StageEmit {
  return (type, payload) => {
    session.bus?.emit(type, session.id, session.clock(), payload);
  };
}

/** `context.offloaded`, the one place it is built: after the record is in the store. */
export function emitOffloaded(emit: StageEmit, record: OffloadRecord, keptTokens: number): void {
  emit('context.offloaded', {
    restoreId: record.id,
    toolUseId: record.toolUseId,
    originalTokens: record.originalTokens,
    keptTokens,
  });
}
