/** An event the store could not hold, kept with the reason in the `dead_letters` table. */
export interface DeadLetter {
  id: number;
  /** When it was dead-lettered (ms since the epoch, wall clock). */
  deadAt: number;
  /** The error that refused it, e.g. `event.payload.total: expected a JSON value (... BigInt)`. */
  reason: string;
  /**
   * The event as JSON text, made representable: a BigInt becomes `"123n"`, a repeated or
   * circular reference `"[Circular]"`, a function `"[Function]"`. NUL characters stay escaped.
   */
  event: string;
}

export interface DeadLetterEntry {
  event: unknown;
  reason: string;
}

/** JSON text of anything, for the dead-letter table: never throws. */
export function deadLetterText(event: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(event, (_key, value: unknown) => {
      if (typeof value === 'bigint') return `${value}n`;
      if (typeof value === 'function' || typeof value === 'symbol')
        return `[${typeof value === 'function' ? 'Function' : 'Symbol'}]`;
      if (typeof value === 'object' && value !== null) {
        if (seen.has(value)) return '[Circular]';
        seen.add(value);
      }
      return value;
    });
  } catch (error) {
    // Deeper than the stack allows: keep the envelope, say why the rest is missing.
    const envelope = event as { type?: unknown; sessionId?: unknown; seq?: unknown; at?: unknown };
    return JSON.stringify({
      type: String(envelope?.type),
      sessionId: String(envelope?.sessionId),
      seq: String(envelope?.seq),
      at: String(envelope?.at),
      payload: `[not serializable: ${(error as Error).message}]`,
    });
  }
}
