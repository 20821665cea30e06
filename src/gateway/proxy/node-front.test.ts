import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { closersAfterEach, listenForTest, okReply } from '../test-support/raw-http.js';
import type { CaptureRecord } from './capture-record.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

const REPLY = okReply('msg_node');

interface Arrival {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const closers = closersAfterEach();

/** A raw node:http upstream: every arrival is kept; `answer` writes the reply. */
async function upstream(answer: (outgoing: ServerResponse, arrival: Arrival, socket: Socket) => void) {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const arrival = { method: incoming.method!, url: incoming.url!, headers: incoming.headers, body: Buffer.concat(chunks) };
      arrivals.push(arrival);
      answer(outgoing, arrival, incoming.socket);
    });
  });
  return { url: await listenForTest(server, closers), arrivals };
}

async function proxyTo(upstreamUrl: string, capture?: CaptureRecord[]): Promise<RunningProxy> {
  const proxy = await startProxy({ upstream: upstreamUrl, ...(capture ? { capture: (line) => capture.push(line) } : {}) });
  closers.push(() => proxy.close());
  return proxy;
}

/** A raw request (bytes as given, any headers); the reply's status, headers and bytes. */
function send(url: string, path: string, body: Buffer, headers: Record<string, string> = {}, onFirstChunk?: () => void) {
  const target = new URL(url);
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => {
          if (chunks.length === 0) onFirstChunk?.();
          chunks.push(chunk);
        });
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode!, headers: incoming.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const anthropicBody = (text: string) =>
  Buffer.from(JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 5, messages: [{ role: 'user', content: text }] }));

describe('cachet proxy: the node:http front end and transport', () => {
  it('forwards request and reply bytes as they are, the path prefix and query kept, hop-by-hop and Cachet headers dropped', async () => {
    const replyBytes = Buffer.from(`${REPLY}\n  `);
    const stub = await upstream((outgoing) => {
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': replyBytes.length, 'x-upstream': 'yes' });
      outgoing.end(replyBytes);
    });
    const capture: CaptureRecord[] = [];
    const proxy = await proxyTo(`${stub.url}/prefix/`, capture);
    // Invalid UTF-8 and a big integer inside a JSON string: the upstream must see these exact bytes.
    const body = Buffer.concat([
      anthropicBody('12345678901234567890123 caf').subarray(0, -4),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}'),
    ]);
    const reply = await send(proxy.url, '/v1/messages?beta=true', body, {
      'x-api-key': 'sk-node-front',
      connection: 'keep-alive, x-drop-me',
      'x-drop-me': '1',
      'accept-encoding': 'gzip',
      'x-cachet-conversation': 'c1',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.equals(replyBytes)).toBe(true);
    expect(reply.headers['content-length']).toBe(String(replyBytes.length));
    expect(reply.headers['x-upstream']).toBe('yes');
    const [arrival] = stub.arrivals;
    expect(arrival!.url).toBe('/prefix/v1/messages?beta=true');
    expect(arrival!.body.equals(body)).toBe(true);
    expect(arrival!.headers['x-api-key']).toBe('sk-node-front');
    for (const dropped of ['x-drop-me', 'accept-encoding', 'x-cachet-conversation'])
      expect(arrival!.headers[dropped]).toBeUndefined();
    await proxy.settled();
    expect(capture).toHaveLength(1);
  });

  it('decodes a reply the upstream compressed unasked, for the client and the record alike', async () => {
    const stub = await upstream((outgoing) => {
      const zipped = gzipSync(REPLY);
      outgoing.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': zipped.length,
      });
      outgoing.end(zipped);
    });
    const capture: CaptureRecord[] = [];
    const proxy = await proxyTo(stub.url, capture);
    const reply = await send(proxy.url, '/v1/messages', anthropicBody('hello'));
    expect(reply.body.toString()).toBe(REPLY);
    expect(reply.headers['content-encoding']).toBeUndefined();
    await proxy.settled();
    expect(capture[0]!.usage).toMatchObject({ input_tokens: 20 });
  });

  it('streams an SSE reply chunk by chunk: the client reads the first event before the upstream ends', async () => {
    let release: () => void = () => {};
    const clientRead = new Promise<void>((resolve) => (release = resolve));
    const stub = await upstream((outgoing) => {
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      outgoing.write(
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_s","model":"claude-sonnet-5","usage":{"input_tokens":7,"output_tokens":1}}}\n\n',
      );
      void clientRead.then(() => {
        outgoing.write(
          'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\n',
        );
        outgoing.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
      });
    });
    const capture: CaptureRecord[] = [];
    const proxy = await proxyTo(stub.url, capture);
    const reply = await send(proxy.url, '/v1/messages', anthropicBody('stream'), {}, release);
    expect(reply.body.toString()).toContain('message_stop');
    await proxy.settled();
    expect(capture).toHaveLength(1);
    expect(capture[0]!.responseId).toBe('msg_s');
  });

  it('sends a request again, once, when a kept-alive upstream connection closes as it leaves; never a fresh one', async () => {
    const requestsOnSocket = new WeakMap<Socket, number>();
    const stub = await upstream((outgoing, _arrival, socket) => {
      const count = (requestsOnSocket.get(socket) ?? 0) + 1;
      requestsOnSocket.set(socket, count);
      // The second request on a connection finds it closing (the keep-alive race).
      if (count > 1) return socket.destroy();
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      outgoing.end(REPLY);
    });
    const proxy = await proxyTo(stub.url);
    expect((await send(proxy.url, '/v1/messages', anthropicBody('one'))).status).toBe(200);
    expect((await send(proxy.url, '/v1/messages', anthropicBody('two'))).status).toBe(200);
    expect(stub.arrivals).toHaveLength(3);

    const refusing = await upstream((_outgoing, _arrival, socket) => socket.destroy());
    const second = await proxyTo(refusing.url);
    const failed = await send(second.url, '/v1/messages', anthropicBody('three'));
    expect(failed.status).toBe(502);
    expect(refusing.arrivals).toHaveLength(1);
  });
});
