import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * What a test file opens (servers, proxies) and closes after each test, newest first. Call once
 * at the top of the file; push a closer for each thing the test starts.
 */
export function closersAfterEach(): Array<() => Promise<void>> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return closers;
}

/**
 * Listens on 127.0.0.1 at a free port and returns the base URL; after the test the server closes
 * with every connection it still holds (kept-alive sockets would otherwise hold `close` open).
 */
export async function listenForTest(server: Server, closers: Array<() => Promise<void>>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** POSTs `body` as JSON over node:http in one write; resolves with the status once the reply ended. */
export function postBytes(url: string, body: Buffer, path = '/v1/messages'): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode!));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** An upstream's JSON reply to a Messages request: the text `ok`, 20 input tokens, `cacheRead` of them read from the cache. */
export function okReply(id: string, cacheRead = 0): string {
  return JSON.stringify({
    id,
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    usage: { input_tokens: 20, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 0, output_tokens: 2 },
  });
}

/** Answers 401 before reading the request's body (the body is drained, never kept). */
export function refuseUnauthorized(incoming: IncomingMessage, outgoing: ServerResponse): void {
  outgoing.writeHead(401, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"authentication_error"}}');
  incoming.resume();
}

/**
 * POSTs `pieces` to /v1/messages, one write each (chunked, or with the whole length declared),
 * with `headers` after the content type; resolves with the status once the reply ended.
 */
export function postPieces(
  url: string,
  pieces: Buffer[],
  chunked: boolean,
  headers: Record<string, string> = {},
): Promise<number> {
  const target = new URL(url);
  const length = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: '/v1/messages',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...headers,
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode!));
      },
    );
    outgoing.on('error', reject);
    for (const piece of pieces) outgoing.write(piece);
    outgoing.end();
  });
}
