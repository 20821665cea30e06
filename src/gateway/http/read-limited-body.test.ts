import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClientGoneError, readIncomingLimited } from './read-limited-body.js';

/** A node:http request as the reader sees it: headers, then the chunks and the end it is sent. */
function fakeIncoming(headers: Record<string, string>) {
  const emitter = new EventEmitter() as EventEmitter & { headers: Record<string, string>; pause(): void };
  emitter.headers = headers;
  emitter.pause = () => {};
  return emitter;
}

const asIncoming = (fake: ReturnType<typeof fakeIncoming>) => fake as unknown as IncomingMessage;

function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)));
  return chunks;
}

describe('readIncomingLimited', () => {
  const body = Buffer.from(Array.from({ length: 1000 }, (_, index) => `${index},`).join(''));

  it('copies a body of declared length into the memory it is given as each chunk arrives, not once the last came', async () => {
    const incoming = fakeIncoming({ 'content-length': String(body.byteLength) });
    const asked: number[] = [];
    const slab = Buffer.alloc(body.byteLength + 100);
    const read = readIncomingLimited(asIncoming(incoming), 1 << 20, (size) => {
      asked.push(size);
      return slab.subarray(0, size);
    });
    const chunks = chunksOf(body, 700);
    let sent = 0;
    for (const chunk of chunks) {
      incoming.emit('data', chunk);
      sent += chunk.byteLength;
      // From the second chunk on, every byte received so far is in the given memory already.
      if (sent > chunks[0]!.byteLength) expect(slab.subarray(0, sent).equals(body.subarray(0, sent))).toBe(true);
    }
    expect(asked).toEqual([body.byteLength]);
    incoming.emit('end');
    const bytes = await read;
    expect(bytes!.buffer).toBe(slab.buffer);
    expect(bytes!.equals(body)).toBe(true);
  });

  it('returns a single chunk as it came, without taking memory', async () => {
    const incoming = fakeIncoming({ 'content-length': String(body.byteLength) });
    let asked = 0;
    const read = readIncomingLimited(asIncoming(incoming), 1 << 20, () => {
      asked++;
      return Buffer.alloc(body.byteLength);
    });
    incoming.emit('data', body);
    incoming.emit('end');
    expect(await read).toBe(body);
    expect(asked).toBe(0);
  });

  it('collects a chunked body (no length) and copies it into the memory it is given at the end', async () => {
    const incoming = fakeIncoming({ 'transfer-encoding': 'chunked' });
    const asked: number[] = [];
    const read = readIncomingLimited(asIncoming(incoming), 1 << 20, (size) => {
      asked.push(size);
      return Buffer.alloc(size);
    });
    for (const chunk of chunksOf(body, 300)) incoming.emit('data', chunk);
    expect(asked).toEqual([]);
    incoming.emit('end');
    expect((await read)!.equals(body)).toBe(true);
    expect(asked).toEqual([body.byteLength]);
  });

  it('keeps every byte when more arrives than was declared, and refuses past the limit', async () => {
    const over = fakeIncoming({ 'content-length': '1000' });
    const read = readIncomingLimited(asIncoming(over), 1 << 20, (size) => Buffer.alloc(size));
    for (const chunk of chunksOf(body, 700)) over.emit('data', chunk);
    over.emit('end');
    expect((await read)!.equals(body)).toBe(true);

    const short = fakeIncoming({ 'content-length': String(body.byteLength) });
    const shortRead = readIncomingLimited(asIncoming(short), 1 << 20, (size) => Buffer.alloc(size));
    const [first, second] = chunksOf(body, 700);
    short.emit('data', first);
    short.emit('data', second);
    short.emit('end');
    expect((await shortRead)!.equals(body.subarray(0, 1400))).toBe(true);

    const limited = fakeIncoming({});
    const limitedRead = readIncomingLimited(asIncoming(limited), 1000, (size) => Buffer.alloc(size));
    for (const chunk of chunksOf(body, 700)) limited.emit('data', chunk);
    expect(await limitedRead).toBeNull();
  });

  it('rejects with ClientGoneError when the client leaves mid-body', async () => {
    const incoming = fakeIncoming({ 'content-length': String(body.byteLength) });
    const read = readIncomingLimited(asIncoming(incoming), 1 << 20, (size) => Buffer.alloc(size));
    incoming.emit('data', body.subarray(0, 700));
    incoming.emit('data', body.subarray(700, 1400));
    incoming.emit('aborted');
    await expect(read).rejects.toBeInstanceOf(ClientGoneError);
  });
});
