import { CachetError, ValidationError } from '../model/errors.js';

export type TraceStoreErrorCode =
  | 'schema_too_new'
  | 'duplicate_event'
  /** The backend refused this event's values (a constraint, a value out of range): retrying cannot help. */
  | 'rejected_event'
  /** Unreachable, corrupt or unreadable store: may pass once the store is back. */
  | 'store_unavailable'
  | 'store_closed';

/**
 * A trace store could not do what was asked: unreachable database, a schema newer than this
 * version of Cachet, an event already stored under the same session and seq.
 */
export class TraceStoreError extends CachetError {
  readonly location: string;
  declare readonly code: TraceStoreErrorCode;
  constructor(code: TraceStoreErrorCode, location: string, message: string, options?: { cause?: unknown }) {
    super(code, `${location}: ${message}`, options);
    this.location = location;
  }
}

/** The (session_id, seq) uniqueness constraint rejected a write, in either backend. */
export function duplicateEventError(location: string, cause: unknown): TraceStoreError {
  return new TraceStoreError('duplicate_event', location, 'an event with the same sessionId and seq is already stored', {
    cause,
  });
}

/**
 * True when the error is about the events themselves (invalid, duplicate, refused by a column),
 * so writing them again can never succeed; false for an unavailable store, which may come back.
 */
export function isEventRejection(error: unknown): boolean {
  if (error instanceof ValidationError) return true;
  return error instanceof TraceStoreError && (error.code === 'duplicate_event' || error.code === 'rejected_event');
}
