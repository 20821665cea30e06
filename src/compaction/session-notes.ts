import { ValidationError } from '../model/errors.js';

/** Notes the agent recorded with `session_note`. They are carried verbatim into every summary. */
export class SessionNotes {
  private readonly list: string[] = [];

  constructor(initial: readonly string[] = []) {
    for (const note of initial) this.add(note);
  }

  /** Add a note; returns its 1-based number. A note already recorded is not repeated. */
  add(note: string): number {
    if (typeof note !== 'string' || note.length === 0) throw new ValidationError('note', 'a non-empty string');
    const existing = this.list.indexOf(note);
    if (existing !== -1) return existing + 1;
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
