import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: a JSON body, or server-sent events written as they are. */
export type ScriptedAnswer = { kind: 'json'; body: unknown } | { kind: 'sse'; events: Array<{ event?: string; data: unknown }> };

/** A local HTTP server that records every request body and answers from a script. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  bodies: Array<Record<string, unknown>>;
  paths: string[];
  close(): Promise<void>;
}

/**
 * Start a loopback server; `answer(body, index)` gives the reply to the index-th request.
 * Bodies are kept as parsed JSON, in arrival order, for the tests to judge.
 */
export async function startScriptedServer(
  answer: (body: Record<string, unknown>, index: number) => ScriptedAnswer,
): Promise<ScriptedServer> {
  const bodies: Array<Record<string, unknown>> = [];
  const paths: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      paths.push(incoming.url ?? '');
      bodies.push(body);
      let reply: ScriptedAnswer;
      try {
        reply = answer(body, bodies.length - 1);
      } catch (error) {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
        return;
      }
      if (reply.kind === 'json') {
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify(reply.body));
        return;
      }
      outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of reply.events) {
        outgoing.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`);
      }
      outgoing.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    bodies,
    paths,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
