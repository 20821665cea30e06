import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createBodySlabs } from './body-slabs.js';
import { fetchTransport, nodeTransport, type UpstreamTransport } from './upstream-transport.js';

let server: Server | null = null;
let transport: UpstreamTransport | null = null;

afterEach(async () => {
  transport?.close();
  transport = null;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function bodyText(answer: Awaited<ReturnType<UpstreamTransport['send']>['answer']>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('nodeTransport', () => {
  it('sends a call again on a new connection when every kept-alive socket was closed by the upstream', async () => {
    // Connections that served a request during warm-up are "stale": the next request on one is cut
    // off unanswered, as when an upstream's keep-alive timeout closes idle sockets during a stall.
    const stale = new Set<Socket>();
    let cutting = false;
    let cut = 0;
    server = createServer((request, response) => {
      if (cutting && stale.has(request.socket)) {
        cut += 1;
        request.socket.destroy();
        return;
      }
      if (!cutting) stale.add(request.socket);
      request.resume();
      request.on('end', () => response.end(`ok ${request.url}`));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    transport = nodeTransport(new URL(`http://127.0.0.1:${port}`));
    const call = (path: string) =>
      (transport as UpstreamTransport).send({ method: 'POST', pathAndQuery: path, headers: {}, body: Buffer.from('{}') }).answer;

    const warm = await Promise.all([call('/a'), call('/b'), call('/c')]);
    for (const answer of warm) await bodyText(answer);
    expect(stale.size).toBe(3);

    cutting = true;
    const answer = await call('/after-stall');
    expect(answer.status).toBe(200);
    expect(await bodyText(answer)).toBe('ok /after-stall');
    // The first attempt went out on a pooled (stale) socket and was cut; the retry did not use another one.
    expect(cut).toBe(1);
  });
});

describe('fetchTransport', () => {
  it('hands an injected fetch a body of its own when the body is lent (its memory is reused after the exchange)', async () => {
    const kept: Uint8Array[] = [];
    const keepingFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
      kept.push(init!.body as Uint8Array);
      return new Response('{}', { status: 200 });
    }) as typeof fetch;
    const lending = fetchTransport(keepingFetch, new URL('http://127.0.0.1:1'));
    const slabs = createBodySlabs();
    const sent: string[] = [];
    for (const letter of ['a', 'b', 'c']) {
      const lease = slabs.take(64 * 1024)!;
      lease.bytes.fill(letter);
      sent.push(lease.bytes.toString());
      const done = lease.hold();
      await lending.send({ method: 'POST', pathAndQuery: '/v1/messages', headers: {}, body: lease.bytes, hold: lease.hold })
        .answer;
      done();
    }
    expect(kept.map((body) => Buffer.from(body).toString())).toEqual(sent);
  });
});
