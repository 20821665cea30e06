import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { closersAfterEach, listenForTest, postBytes } from '../test-support/raw-http.js';
import { createProxyApp } from './create-proxy-app.js';
import { startProxy } from './start-proxy.js';

/**
 * `--plan` bodies read into reused slabs (node front, 32 KB–4 MB) against the same bodies through
 * the Hono app, which reads each into memory of its own: the same bytes upstream and the same
 * events, the misses explained from the previous body the tracker kept. A tracker, span reader
 * or sent body that kept a view of a slab would see it written over by the next body read into it.
 */

const closers = closersAfterEach();

const reply = (missed: boolean) =>
  JSON.stringify({
    id: 'msg_slabs',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    usage: { input_tokens: 20, cache_read_input_tokens: missed ? 0 : 5000, cache_creation_input_tokens: 0, output_tokens: 2 },
  });

/** A body with `turns` messages reads nothing from the cache every third turn (a miss explained from two bodies). */
const replyFor = (body: Buffer) => reply((body.toString('latin1').match(/"role":/g)?.length ?? 0) % 3 === 2);

/** Conversation `conversation`'s body after `turns` messages: over 64 KB, so it arrives in several reads. */
function bodyOf(conversation: number, turns: number, edited = -1): Buffer {
  const messages = Array.from({ length: turns }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      {
        type: 'text',
        text: `${index === edited ? 'edited ' : ''}conversation ${conversation} turn ${index} ${'words '.repeat(900 + index)}`,
      },
    ],
  }));
  const text = JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 10,
    system: [
      { type: 'text', text: `conversation ${conversation} ${'rules '.repeat(12_000)}`, cache_control: { type: 'ephemeral' } },
    ],
    messages,
  });
  // Bytes the plan must forward as they came: a big number and a duplicate key.
  return Buffer.from(text.replace('"max_tokens":10', '"max_tokens":10,"n":12345678901234567890123,"n":1'));
}

const withoutTimings = (event: CachetEvent) => {
  const payload = { ...(event.payload as unknown as Record<string, unknown>) };
  delete payload.durationMs;
  return [event.type, event.sessionId, JSON.stringify(payload)].join(' ');
};

async function upstream() {
  const arrivals: Buffer[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      arrivals.push(body);
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(replyFor(body));
    });
  });
  return { url: await listenForTest(server, closers), arrivals };
}

/** The node proxy (slabs) and the Hono app (no slabs), each on its own upstream, with their events. */
async function proxies() {
  const node = { ...(await upstream()), events: [] as string[] };
  const app = { ...(await upstream()), events: [] as string[] };
  const nodeBus = new EventBus();
  nodeBus.onAny((event: CachetEvent) => node.events.push(withoutTimings(event)));
  const appBus = new EventBus();
  appBus.onAny((event: CachetEvent) => app.events.push(withoutTimings(event)));
  const proxy = await startProxy({ upstream: node.url, bus: nodeBus, plan: true, instance: 'slabs' });
  closers.push(() => proxy.close());
  const hono = createProxyApp({ upstream: app.url, bus: appBus, plan: true, instance: 'slabs' });
  const viaApp = async (body: Buffer) => {
    const response = await hono.app.fetch(
      new Request('http://127.0.0.1/v1/messages', {
        method: 'POST',
        body: new Uint8Array(body),
        headers: { 'content-type': 'application/json' },
      }),
    );
    await response.arrayBuffer();
    return response.status;
  };
  return { node, app, proxy, hono, viaApp };
}

describe('--plan bodies in reused slabs', () => {
  it('one after another (one slab reused every time): the bytes and events of bodies read into their own memory', async () => {
    const { node, app, proxy, hono, viaApp } = await proxies();
    const bodies = [bodyOf(1, 1), bodyOf(1, 2), bodyOf(1, 3), bodyOf(2, 1), bodyOf(1, 4), bodyOf(1, 5, 2), bodyOf(1, 3)];
    bodies.push(bodyOf(2, 2), bodyOf(1, 6), bodyOf(1, 8), bodyOf(2, 3));
    for (const body of bodies) {
      expect(await postBytes(proxy.url, body)).toBe(200);
      await proxy.settled();
      expect(await viaApp(body)).toBe(200);
      await hono.settled();
    }
    expect(node.arrivals.length).toBe(bodies.length);
    for (const [index, arrival] of node.arrivals.entries()) {
      expect(arrival.equals(app.arrivals[index]!), `request ${index}`).toBe(true);
      expect(arrival.includes('"n":12345678901234567890123,"n":1'), `request ${index}`).toBe(true);
    }
    expect(node.events.filter((event) => event.startsWith('cache.break')).length).toBeGreaterThan(1);
    expect(node.events).toEqual(app.events);
  });

  it('eight conversations at a time (slabs lent to several, then reused by others): the same bytes and events', async () => {
    const { node, app, proxy, hono, viaApp } = await proxies();
    for (let turns = 1; turns <= 5; turns++) {
      const batch = Array.from({ length: 8 }, (_, conversation) => bodyOf(conversation, turns, turns === 4 ? 1 : -1));
      const statuses = await Promise.all(batch.map((body) => postBytes(proxy.url, body)));
      expect(statuses).toEqual(batch.map(() => 200));
      await proxy.settled();
      for (const body of batch) expect(await viaApp(body)).toBe(200);
      await hono.settled();
    }
    const sorted = (list: string[]) => [...list].sort();
    const latin1 = (list: Buffer[]) => list.map((body) => body.toString('latin1'));
    expect(node.arrivals.length).toBe(40);
    expect(sorted(latin1(node.arrivals))).toEqual(sorted(latin1(app.arrivals)));
    expect(node.events.filter((event) => event.startsWith('cache.break')).length).toBeGreaterThan(8);
    expect(sorted(node.events)).toEqual(sorted(app.events));
  });
});
