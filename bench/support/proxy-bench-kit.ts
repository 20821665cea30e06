/**
 * What the proxy benchmarks share: a stub Messages upstream answering one fixed reply with usage,
 * the yardstick (the least a Node proxy can do: node:http piping request and reply, keep-alive
 * both ways, no parsing, no recording), and a keep-alive JSON client.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BENCH_REPLY = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 20, cache_read_input_tokens: 12_000, cache_creation_input_tokens: 0, output_tokens: 2 },
});

export interface Listening {
  port: number;
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, onClose: () => void = () => {}): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      onClose();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * An upstream that drains the request and answers {@link BENCH_REPLY}. Its idle connections stay
 * open for 10 minutes: a proxy left idle while the bench measures the others must not find its
 * pooled connections closed (Node's 5 s default) and meet the keep-alive race.
 */
export function startStubUpstream(): Promise<Listening> {
  const server = createServer((incoming, outgoing) => {
    incoming.resume();
    incoming.on('end', () => {
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BENCH_REPLY) });
      outgoing.end(BENCH_REPLY);
    });
  });
  server.keepAliveTimeout = 600_000;
  return listen(server);
}

/** The yardstick proxy in front of `upstreamPort`. */
export function startYardstickProxy(upstreamPort: number): Promise<Listening> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((incoming, outgoing) => {
    const forward = httpRequest(
      { host: '127.0.0.1', port: upstreamPort, path: incoming.url, method: incoming.method, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers as IncomingHttpHeaders);
        answer.pipe(outgoing);
      },
    );
    // A failed upstream call is a 502, not a crash of the process (the yardstick runs in its own in the CPU bench).
    forward.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forward);
  });
  return listen(server, () => agent.destroy());
}

/**
 * POSTs `payload` with an API key; resolves with the latency in ms, rejects on a non-200. A
 * kept-alive connection the server closed as the request left (Node's keep-alive race) is retried once.
 */
export function postJson(agent: Agent, port: number, payload: string, path = '/v1/messages', retry = true): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-bench', 'content-length': Buffer.byteLength(payload) },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () =>
          incoming.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${incoming.statusCode}`)),
        );
      },
    );
    outgoing.on('error', (error: Error & { code?: string }) => {
      if (retry && outgoing.reusedSocket && error.code === 'ECONNRESET') resolve(postJson(agent, port, payload, path, false));
      else reject(error);
    });
    outgoing.end(payload);
  });
}
