/**
 * What the emulator answers, as data (the `@ai-sdk/test-server` shape): a JSON value, a list
 * of SSE chunks written as they are, or a provider-shaped error. Handlers build these; one
 * function turns them into a `Response`, so tests can also assert on the fixture itself.
 */
export type EmulatorResponse =
  | { type: 'json-value'; body: unknown; status?: number; headers?: Record<string, string> }
  | { type: 'stream-chunks'; chunks: readonly string[]; headers?: Record<string, string> }
  | { type: 'error'; status: number; body: unknown; headers?: Record<string, string> };

/** Turn an emulator response into a fetch `Response`. */
export function toResponse(fixture: EmulatorResponse): Response {
  switch (fixture.type) {
    case 'json-value':
    case 'error':
      return new Response(JSON.stringify(fixture.body), {
        status: fixture.type === 'error' ? fixture.status : (fixture.status ?? 200),
        headers: { 'content-type': 'application/json', ...fixture.headers },
      });
    case 'stream-chunks': {
      const encoder = new TextEncoder();
      const chunks = fixture.chunks;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
          controller.close();
        },
      });
      return new Response(stream, {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...fixture.headers },
      });
    }
  }
}

/** One SSE event as the wire carries it. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
