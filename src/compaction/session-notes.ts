import { ValidationError } from '../model/errors.js';

/**
 * Longest note `session_note` accepts. Notes are carried verbatim into every summary, so one
 * note is "a decision, a constraint, a fact": a pasted file would be re-sent on every request.
 */
export const SESSION_NOTE_MAX_CHARACTERS = 4_000;
/** Most notes a session keeps; the summary carries all of them. */
export const SESSION_NOTE_MAX_COUNT = 200;

/** Notes the agent recorded with `session_note`. They are carried verbatim into every summary. */
export class SessionNotes {
  private readonly list: string[] = [];

  /** Notes restored from a checkpoint are taken as they were recorded (the limits apply to `add`). */
  constructor(initial: readonly string[] = []) {
    for (const note of initial)
      if (typeof note === 'string' && note.length > 0 && !this.list.includes(note)) this.list.push(note);
  }

  /**
   * Add a note; returns its 1-based number. A note already recorded is not repeated. Throws
   * `ValidationError` (path `note`) for an empty note, one longer than
   * `SESSION_NOTE_MAX_CHARACTERS`, or one beyond `SESSION_NOTE_MAX_COUNT`.
   */
  add(note: string): number {
    if (typeof note !== 'string' || note.length === 0) throw new ValidationError('note', 'a non-empty string');
    if (note.length > SESSION_NOTE_MAX_CHARACTERS) {
      throw new ValidationError(
        'note',
        `at most ${SESSION_NOTE_MAX_CHARACTERS} characters`,
        `got ${note.length}; keep the decision or fact and restore the details with context_restore`,
      );
    }
    const existing = this.list.indexOf(note);
    if (existing !== -1) return existing + 1;
    if (this.list.length >= SESSION_NOTE_MAX_COUNT) {
      throw new ValidationError('note', `at most ${SESSION_NOTE_MAX_COUNT} notes per session`, 'this session has reached it');
    }
    this.list.push(note);
    return this.list.length;
  }

  get all(): readonly string[] {
    return this.list;
  }

  toJSON(): string[] {
    return [...this.list];
  }
}
