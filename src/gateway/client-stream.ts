/** The Node response under a Hono app served by @hono/node-server (`context.env.outgoing`), when there is one. */
export interface NodeOutgoing {
  destroy(error?: Error): void;
}

/**
 * The reply's body for the client, such that an upstream that breaks off mid-reply ends the
 * client's connection with one line through `onBreak`, not a stack trace from the HTTP server
 * (@hono/node-server prints any error of a response body with `console.error`). Where the Node
 * response is known, its socket is destroyed (the client sees the reply cut short, as it was);
 * otherwise the body errors as before. A client that leaves cancels the upstream body.
 */
export function guardClientStream(
  source: ReadableStream<Uint8Array>,
  onBreak: (error: unknown, bytesSent: number) => void,
  outgoing: NodeOutgoing | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let bytesSent = 0;
  // After a break the stream waits, neither ending nor erroring, until the server cancels it.
  let releaseBroken: (() => void) | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        onBreak(error, bytesSent);
        if (!outgoing) return controller.error(error);
        // Destroying the response closes it; the server then cancels this stream (no body error to print).
        const broken = new Promise<void>((resolve) => {
          releaseBroken = resolve;
        });
        outgoing.destroy();
        return broken;
      }
      if (chunk.done) controller.close();
      else {
        bytesSent += chunk.value.byteLength;
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      releaseBroken?.();
      return reader.cancel(reason).catch(() => {});
    },
  });
}

/** One line for a cause: its code or message, never a stack. */
export function causeLine(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const own = error instanceof Error ? ((error as Error & { code?: string }).code ?? error.message) : String(error);
  return cause?.code ?? cause?.message ?? own;
}
