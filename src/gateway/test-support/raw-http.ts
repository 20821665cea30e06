import { request as httpRequest, type Server } from 'node:http';
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
