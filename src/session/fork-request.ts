import { CachetError, ValidationError } from '../model/errors.js';
import type { CanonicalRequest, TailItem } from '../model/request.js';
import { assemble } from './assemble.js';
import type { Session } from './session.js';

/** A fork of a session with no messages: there is no conversation whose cache a fork could read. */
export class EmptySessionForkError extends CachetError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super('fork_of_empty_session', `fork of session ${sessionId}: the session has no messages, so there is no prefix to fork`);
    this.sessionId = sessionId;
  }
}

export interface ForkOptions {
  /** What the side call asks (summarise, title, classify, a subagent's task): sent after the last breakpoint. */
  instruction: string;
  /**
   * Another model for the side call. Caches are per model on every provider, so a fork on
   * another model reads nothing of the parent's cache; it keeps the layout only.
   */
  model?: string;
}

/**
 * A cache-safe fork: a one-shot side request built from the session's exact prefix — the same
 * tools, system and history, byte for byte, up to the last persisted block — with `instruction`
 * as the only thing after it (a request-scoped tail item, where the session's volatile tail would
 * go). Converted with the parent's adapter and options, its wire body equals the parent's next
 * body up to the last breakpoint, so it reads the parent's cache; adapters never put a marker on
 * the tail, so the instruction writes no entry nobody will read. The session is not changed: the
 * fork's reply is not history.
 *
 * @example
 * const fork = forkRequest(session, { instruction: 'Give this conversation a five-word title.' });
 * const { body } = anthropicAdapter.convertRequest(fork, sameOptionsAsTheParent);
 * await client.messages.create(body); // usage.cache_read_input_tokens ≈ the parent's prefix
 */
export function forkRequest(session: Session, options: ForkOptions): CanonicalRequest {
  if (typeof options !== 'object' || options === null) throw new ValidationError('fork options', 'an object { instruction }');
  if (typeof options.instruction !== 'string' || options.instruction.trim().length === 0) {
    throw new ValidationError('fork options.instruction', 'a non-empty string');
  }
  if (options.model !== undefined && (typeof options.model !== 'string' || options.model.length === 0)) {
    throw new ValidationError('fork options.model', 'a non-empty model id when given');
  }
  if (session.history.length === 0 && session.sessionMessages.length === 0) throw new EmptySessionForkError(session.id);
  const instruction: TailItem = { kind: 'custom', text: options.instruction, scope: 'request', position: 'end' };
  const request = assemble(session, { resolvedTail: [instruction] });
  return options.model === undefined ? request : { ...request, model: options.model };
}
