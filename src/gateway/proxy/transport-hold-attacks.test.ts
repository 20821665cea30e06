import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { closersAfterEach } from '../test-support/raw-http.js';
import { nodeTransport } from './upstream-transport.js';

/**
 * Attack on the transport's hold on a lent body (`UpstreamCall.hold`: "hold it until it is written"):
 * a body larger than the kernel's socket buffers, to an upstream that answers at once and then stops
 * reading. The bytes not taken by the kernel wait in the socket's own queue as views of the caller's
 * memory (a socket does not copy a Buffer it queues), so the hold must last until they are written.
 * Reference: the upstream's own count of the bytes it has read when the hold is released.
 */

const closers = closersAfterEach();
const REPLY = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

async function stallingUpstream() {
  const state = { read: 0, paused: null as Socket | null, done: null as (() => void) | null, expected: 0 };
  const server = createServer((socket) => {
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      state.read += chunk.byteLength;
      if (!answered) {
        answered = true;
        socket.write(REPLY);
        socket.pause();
        state.paused = socket;
      }
      if (state.read >= state.expected) state.done?.();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    state.paused?.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { base: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), state };
}

describe('node transport: the hold on a lent body under back-pressure', () => {
  it.each([
    ['one buffer', false],
    ['pieces', true],
  ])('%s: released only once every byte has left (not when the last is queued)', async (_name, inPieces) => {
    const upstream = await stallingUpstream();
    const size = 48 * 1024 * 1024;
    const body = Buffer.alloc(size, 0x61);
    upstream.state.expected = size;
    const transport = nodeTransport(upstream.base);
    closers.push(async () => transport.close());
    let readAtRelease: number | null = null;
    const arrived = new Promise<void>((resolve) => (upstream.state.done = resolve));
    const call = {
      method: 'POST',
      pathAndQuery: '/v1/messages',
      headers: { 'content-type': 'application/json' },
      body: inPieces ? { pieces: [body.subarray(0, size / 2), body.subarray(size / 2)], byteLength: size } : body,
      hold: () => () => {
        readAtRelease ??= upstream.state.read;
      },
    };
    const sending = transport.send(call);
    const answer = await sending.answer;
    answer.body.resume();
    await new Promise((resolve) => answer.body.on('end', resolve));
    // The exchange is answered; most of the body still waits. Let the socket settle, then read on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const released = readAtRelease;
    upstream.state.paused!.resume();
    await arrived;
    // Released before the upstream could have read the body: the caller could reuse memory still being sent.
    if (released !== null) expect(released).toBeGreaterThan(size - 16 * 1024 * 1024);
    await vi.waitFor(() => expect(readAtRelease).not.toBeNull());
  });
});
