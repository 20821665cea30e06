import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/event-bus.js';
import { mulberry32 } from '../../model/mulberry32.js';
import { closersAfterEach, listenForTest, okReply } from '../test-support/raw-http.js';
import { type RunningProxy, type StartProxyOptions, startProxy } from './start-proxy.js';

/**
 * Attacks on the edges of the proxy's front end, as a hostile client writes them over a raw
 * socket: a client that leaves in the middle of its upload (reset, half-close, chunked without
 * its last chunk), a body of exactly the size limit and one byte more (declared and chunked, in
 * hostile pieces, at sizes read into reused slabs), and `close()` while a request is still
 * being uploaded or its reply is still streaming.
 *
 * Checked against what a plain proxy would do: every complete body reaches the upstream byte for
 * byte (a body read into a slab after an abandoned one is not mixed with it), an abandoned or
 * refused body never reaches it, every status is the one HTTP promises, and `settled()` and
 * `close()` resolve.
 */

const REPLY = okReply('msg_edges');

const closers = closersAfterEach();

/** An upstream that records every body it read whole; `hold` keeps a reply (or an SSE stream after its first event) until released. */
async function recordingUpstream(mode: 'json' | 'held-json' | 'held-stream' = 'json') {
  const bodies: Buffer[] = [];
  const releases: Array<() => void> = [];
  let arrived: () => void = () => {};
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      if (mode === 'json') {
        outgoing.writeHead(200, { 'content-type': 'application/json' }).end(REPLY);
        return;
      }
      if (mode === 'held-json') {
        releases.push(() => outgoing.writeHead(200, { 'content-type': 'application/json' }).end(REPLY));
      } else {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        outgoing.write(
          'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":20,"output_tokens":1}}}\n\n',
        );
        releases.push(() =>
          outgoing.end(
            'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
          ),
        );
      }
      arrived();
    });
  });
  const url = await listenForTest(server, closers);
  return {
    url,
    bodies,
    arrival,
    release: () => {
      for (const release of releases.splice(0)) release();
    },
  };
}

async function proxyOn(upstream: string, options: Omit<StartProxyOptions, 'upstream'> = {}): Promise<RunningProxy> {
  const proxy = await startProxy({ upstream, bus: new EventBus(), instance: 'attack-edges', ...options });
  closers.push(() => proxy.close({ graceMs: 0 }));
  return proxy;
}

/** A body of exactly `size` bytes: valid JSON with multi-byte text and escapes where cuts can fall. */
function bodyOfSize(size: number, tag: string): Buffer {
  const head = `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"${tag} `;
  const tail = '"}]}';
  const filler = ['é', '€', '😀', '\\"', '\\\\', 'a', '\\u00e9'];
  let text = '';
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let index = 0; bytes < size; index++) {
    let piece = filler[index % filler.length]!;
    if (bytes + Buffer.byteLength(piece) > size) piece = 'a';
    text += piece;
    bytes += Buffer.byteLength(piece);
  }
  const body = Buffer.from(head + text + tail);
  expect(body.byteLength).toBe(size);
  JSON.parse(body.toString('utf8'));
  return body;
}

/** Seeded hostile cuts: one-byte and empty pieces, cuts inside UTF-8 sequences. */
function piecesOf(random: () => number, body: Buffer): Buffer[] {
  const cuts = new Set<number>([0, body.byteLength]);
  while (cuts.size < 10) cuts.add(1 + Math.floor(random() * (body.byteLength - 1)));
  cuts.add(1);
  const sorted = [...cuts].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  for (let index = 1; index < sorted.length; index++) {
    pieces.push(body.subarray(sorted[index - 1], sorted[index]));
    if (random() < 0.2) pieces.push(Buffer.alloc(0));
  }
  return pieces;
}

type Ending = 'complete' | 'reset' | 'half-close' | 'stall';

interface RawExchange {
  socket: Socket;
  /** The raw reply (status line, headers, body) once the connection closed, '' when none came. */
  reply: Promise<string>;
  /** Resolves once every piece was handed to the socket. */
  written: Promise<void>;
  /** Resolves once the reply received so far contains `text`. */
  seen: (text: string) => Promise<void>;
}

/** One request over a raw socket: the body in `pieces` (chunked or with its length), ended as `ending` says. */
function rawPost(url: string, pieces: Buffer[], chunked: boolean, ending: Ending, declared?: number): RawExchange {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  const length = declared ?? pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  const received: Buffer[] = [];
  const watchers: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    for (const watcher of [...watchers]) watcher();
  });
  const reply = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
    socket.on('error', () => {});
  });
  const seen = (text: string) =>
    new Promise<void>((resolve) => {
      const watcher = () => {
        if (!Buffer.concat(received).toString('utf8').includes(text)) return;
        watchers.splice(watchers.indexOf(watcher), 1);
        resolve();
      };
      watchers.push(watcher);
      watcher();
    });
  const written = (async () => {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\n${
        chunked ? 'transfer-encoding: chunked' : `content-length: ${length}`
      }\r\n\r\n`,
    );
    const sent = ending === 'complete' ? pieces : pieces.slice(0, Math.ceil(pieces.length / 2));
    for (const piece of sent) {
      if (chunked && piece.byteLength > 0) socket.write(`${piece.byteLength.toString(16)}\r\n`);
      if (piece.byteLength > 0) socket.write(piece);
      if (chunked && piece.byteLength > 0) socket.write('\r\n');
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (ending === 'complete' && chunked) socket.write('0\r\n\r\n');
    if (ending === 'reset') socket.resetAndDestroy();
    if (ending === 'half-close') socket.end();
  })();
  return { socket, reply, written, seen };
}

const statusOf = (reply: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);

describe('proxy front: a client that leaves in the middle of its upload', () => {
  it.each([
    ['reset, with a content-length', 'reset', false],
    ['reset, chunked', 'reset', true],
    ['half-close, with a content-length', 'half-close', false],
    ['half-close, chunked (no last chunk)', 'half-close', true],
  ] as const)(
    '%s: nothing reaches the upstream, the bodies after it arrive whole, settled() resolves',
    async (_name, ending, chunked) => {
      const upstream = await recordingUpstream();
      const proxy = await proxyOn(upstream.url);
      const random = mulberry32(ending.length * 31 + (chunked ? 7 : 0));
      const sent: Buffer[] = [];
      for (const [round, size] of [40_000, 40_000, 300_000, 120_000, 40_000].entries()) {
        // An abandoned upload of the same size in between: it is read into the memory the next complete one may get.
        const abandoned = rawPost(proxy.url, piecesOf(random, bodyOfSize(size, `gone-${round}`)), chunked, ending);
        await abandoned.written;
        const body = bodyOfSize(size, `kept-${round}`);
        sent.push(body);
        const complete = rawPost(proxy.url, piecesOf(random, body), chunked, 'complete');
        expect(statusOf(await complete.reply)).toBe(200);
        abandoned.socket.destroy();
        const abandonedReply = await abandoned.reply;
        // A half-closed upload may be answered 400 by node's parser; it is never forwarded.
        expect([0, 400]).toContain(statusOf(abandonedReply));
      }
      await proxy.settled();
      expect(upstream.bodies.map((body) => body.toString('utf8'))).toEqual(sent.map((body) => body.toString('utf8')));
    },
  );
});

describe('proxy front: a body of exactly the size limit, and one byte more', () => {
  const LIMIT = 48_000;
  it.each([
    ['with a content-length', false],
    ['chunked', true],
  ] as const)(
    '%s, in hostile pieces: the limit is forwarded byte for byte, one more byte is a readable 413',
    async (_name, chunked) => {
      const upstream = await recordingUpstream();
      const proxy = await proxyOn(upstream.url, { maxBodyBytes: LIMIT });
      const random = mulberry32(chunked ? 413 : 414);
      const sent: Buffer[] = [];
      for (let round = 0; round < 3; round++) {
        const atLimit = bodyOfSize(LIMIT, `at-${round}`);
        sent.push(atLimit);
        const accepted = rawPost(proxy.url, piecesOf(random, atLimit), chunked, 'complete');
        expect(statusOf(await accepted.reply)).toBe(200);
        const over = rawPost(proxy.url, piecesOf(random, bodyOfSize(LIMIT + 1, `over-${round}`)), chunked, 'complete');
        const refused = await over.reply;
        expect(statusOf(refused)).toBe(413);
        expect(refused).toContain('request_too_large');
        // Right after a refusal, another body at the limit (into the same reused memory) arrives whole.
        const again = bodyOfSize(LIMIT, `again-${round}`);
        sent.push(again);
        expect(statusOf(await rawPost(proxy.url, piecesOf(random, again), chunked, 'complete').reply)).toBe(200);
      }
      await proxy.settled();
      expect(upstream.bodies.map((body) => body.toString('utf8'))).toEqual(sent.map((body) => body.toString('utf8')));
    },
  );
});

describe('proxy close(): requests still in flight', () => {
  it('a client still uploading is cut off after the grace period; close() resolves and nothing reaches the upstream', async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy({ upstream: upstream.url, bus: new EventBus() });
    const stalled = rawPost(proxy.url, piecesOf(mulberry32(1), bodyOfSize(60_000, 'stalled')), false, 'stall');
    await stalled.written;
    await proxy.close({ graceMs: 0 });
    expect(statusOf(await stalled.reply)).toBe(0);
    expect(upstream.bodies).toHaveLength(0);
  });

  it('an upload that completes during the grace period is forwarded and answered', async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy({ upstream: upstream.url, bus: new EventBus() });
    const body = bodyOfSize(60_000, 'late');
    const target = new URL(proxy.url);
    const socket = connect(Number(target.port), target.hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const reply = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(received).toString())));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.byteLength}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 30_001));
    // The proxy has the request's headers (an exchange in flight) before close() starts: a request
    // sent after them on another connection has been answered.
    expect(statusOf(await rawPost(proxy.url, [bodyOfSize(1_000, 'after')], false, 'complete').reply)).toBe(200);
    const closed = proxy.close({ graceMs: 60_000 });
    // The rest without a half-close (node's server drops a half-closed client's pending reply by design).
    socket.write(body.subarray(30_001));
    expect(statusOf(await reply)).toBe(200);
    await closed;
    expect(upstream.bodies.map(String)).toEqual([bodyOfSize(1_000, 'after').toString(), body.toString()]);
  });

  it.each([
    ['a JSON reply', 'held-json'],
    ['a streamed reply', 'held-stream'],
  ] as const)('%s the upstream still holds: close() with no grace resolves, the client sees the cut', async (_name, mode) => {
    const upstream = await recordingUpstream(mode);
    closers.push(async () => upstream.release());
    const proxy = await startProxy({ upstream: upstream.url, bus: new EventBus() });
    const exchange = rawPost(proxy.url, [bodyOfSize(50_000, 'held')], false, 'complete');
    await upstream.arrival;
    // The stream has begun at the client (not only at the upstream) before close() cuts it.
    if (mode === 'held-stream') await exchange.seen('message_start');
    await proxy.close({ graceMs: 0 });
    const reply = await exchange.reply;
    // A streamed reply had begun (200 and its first event) and is cut; a buffered one never started.
    if (mode === 'held-stream') expect(reply).toContain('message_start');
    expect(reply).not.toContain('message_stop');
    await proxy.settled();
  });

  it('a streamed reply the upstream finishes during the grace period reaches the client whole', async () => {
    const upstream = await recordingUpstream('held-stream');
    const proxy = await startProxy({ upstream: upstream.url, bus: new EventBus() });
    const exchange = rawPost(proxy.url, [bodyOfSize(50_000, 'streamed')], false, 'complete');
    await upstream.arrival;
    const closed = proxy.close({ graceMs: 60_000 });
    upstream.release();
    const reply = await exchange.reply;
    expect(statusOf(reply)).toBe(200);
    expect(reply).toContain('message_stop');
    await closed;
  });
});
