import { CachetError } from '../model/errors.js';

/**
 * A trace store could not do what was asked: unreachable database, a schema newer than this
 * version of Cachet, an event already stored under the same session and seq.
 */
export class TraceStoreError extends CachetError {
  readonly location: string;
  constructor(
    code: 'schema_too_new' | 'duplicate_event' | 'store_unavailable' | 'store_closed',
    location: string,
    message: string,
    options?: { cause?: unknown },
  ) {
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
