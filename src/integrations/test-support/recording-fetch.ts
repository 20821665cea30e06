import type { ScriptedAnswer } from './scripted-server.js';

/** A `fetch` that records each request's JSON body and answers from a script, with no socket. */
export interface RecordingFetch {
  fetch: typeof globalThis.fetch;
  bodies: Array<Record<string, unknown>>;
}

/**
 * A stand-in for `fetch` to hand an SDK client (`clientOptions: { fetch }`): `answer(body, index)`
 * gives the reply to the index-th request, as JSON or server-sent events. Faster than a loopback
 * server when a property test sends thousands of requests.
 */
export function recordingFetch(answer: (body: Record<string, unknown>, index: number) => ScriptedAnswer): RecordingFetch {
  const bodies: Array<Record<string, unknown>> = [];
  const fetch = (async (_input: unknown, init?: { body?: unknown }) => {
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    bodies.push(body);
    const reply = answer(body, bodies.length - 1);
    if (reply.kind === 'json') {
      return new Response(JSON.stringify(reply.body), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    const text = reply.events
      .map((event) => `${event.event ? `event: ${event.event}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`)
      .join('');
    return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof globalThis.fetch;
  return { fetch, bodies };
}
