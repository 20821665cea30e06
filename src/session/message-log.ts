import type { Message } from '../model/content.js';

/**
 * A session's messages (session-static then history) in one append-only array, built on the
 * first request. Entries below the longest snapshot handed out are never changed in place: a
 * change there starts a new array, so every `(source, length)` snapshot stays immutable and a
 * request can hold one without copying the history.
 */
export class MessageLog {
  private log: Message[] | null = null;
  private shared = 0;

  /** Forget the array (history was rewritten); the next snapshot builds a new one. */
  reset(): void {
    this.log = null;
  }

  push(message: Message): void {
    this.log?.push(message);
  }

  replace(index: number, message: Message): void {
    if (!this.log) return;
    if (this.shared > index) {
      // A request holds a snapshot covering `index`: it keeps the old array, this one is new.
      this.log = this.log.slice();
      this.shared = 0;
    }
    this.log[index] = message;
  }

  snapshot(sessionMessages: readonly Message[], history: readonly Message[]): { source: readonly Message[]; length: number } {
    if (!this.log) {
      this.log = sessionMessages.concat(history);
      this.shared = 0;
    }
    this.shared = Math.max(this.shared, this.log.length);
    return { source: this.log, length: this.log.length };
  }
}
