import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createBreakDetector } from '../../cache/break/break-detector.js';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { closersAfterEach, listenForTest, okReply, postBytes } from '../test-support/raw-http.js';
import { type RunningProxy, type StartProxyOptions, startProxy } from './start-proxy.js';

/**
 * Attacks on the proxy's fast paths over real HTTP, each against a plain path run beside it on
 * the same requests: pass-through's key fields resumed past a conversation's shared bytes
 * (keyFieldsReader) against the whole-body parse a capture forces; `--plan`'s body written
 * upstream by the node transport against the same plan through `fetch` (which gets it whole);
 * every miss the proxy explains against a fresh detector reading the two bodies that went
 * upstream (the previous body the tracker keeps).
 * Requests are hostile: two conversations with the same opening bytes interleaved, a history
 * edited and rewound, escaped and repeated keys, `__proto__`, invalid UTF-8, big numbers, CRLF
 * and spaces between items, client markers that move, bodies past 16 KB (the resumed scan).
 */

const REPLY = okReply('msg_attack', 5000);

const closers = closersAfterEach();

/** Every third request reads nothing from the cache (a miss the proxy explains from the two bodies). */
const replyTo = (index: number) =>
  index % 3 === 2 ? REPLY.replace('"cache_read_input_tokens":5000', '"cache_read_input_tokens":0') : REPLY;

async function upstream(): Promise<{ url: string; arrivals: Array<{ body: Buffer; length: string | undefined }> }> {
  const arrivals: Array<{ body: Buffer; length: string | undefined }> = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      arrivals.push({ body: Buffer.concat(chunks), length: incoming.headers['content-length'] });
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(replyTo(arrivals.length - 1));
    });
  });
  const url = await listenForTest(server, closers);
  return { url, arrivals };
}

/** A proxy on its own upstream, with its events (timings left out). */
async function proxyWith(options: Omit<StartProxyOptions, 'upstream'>) {
  const { url, arrivals } = await upstream();
  const bus = new EventBus();
  const events: unknown[] = [];
  bus.onAny((event: CachetEvent) => {
    const payload = { ...(event.payload as unknown as Record<string, unknown>) };
    delete payload.durationMs;
    events.push([event.type, event.sessionId, payload]);
  });
  const proxy: RunningProxy = await startProxy({ upstream: url, bus, instance: 'attack', ...options });
  closers.push(() => proxy.close());
  return { proxy, arrivals, events };
}

const big = (tag: string) => 'x'.repeat(9000) + tag;
/** History items with hostile bytes (each a JSON object as a client might write it). */
const ITEMS: Buffer[] = [
  '{"role":"user","content":[{"type":"text","text":"open n=12345678901234567890123"}]}',
  `{"role":"assistant","content":[{"type":"text","text":"a","type":"text"},{"type":"tool_use","id":"t1","name":"f","input":{"v":1e300,"k":1,"k":2,"__proto__":{"x":1}}}]}`,
  Buffer.concat([
    Buffer.from(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"${big('r')} `),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}]}'),
  ]),
  `{"r\\u006fle":"assistant","content":[{"type":"text","text":"\\u00e9\\ud800 \\"q\\" \\\\ ${big('e')}"}]}`,
  '{"role":"user","content":[{"type":"text","text":"marked","cache_control":{"type":"ephemeral"}},{"type":"text","text":"tail"}]}',
  '{"role":"assistant" , "content" : [ {"type":"text","text":"spaces"} ] }',
  '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}',
  '{"role":"assistant","content":"a string reply"}',
  '{"role":"user","content":"a string question"}',
].map((item) => (Buffer.isBuffer(item) ? item : Buffer.from(item)));

/** A body of `items` (indexes into ITEMS, or a Buffer), the separator between them, and extra members. */
function bodyOfItems(items: Array<number | Buffer>, separator = ',', extra = '', system = 'sys') {
  const parts = items.map((item) => (typeof item === 'number' ? ITEMS[item]! : item));
  return Buffer.concat([
    Buffer.from(
      `{"model":"claude-sonnet-4-5","max_tokens":10,"system":[{"type":"text","text":"${system}","cache_control":{"type":"ephemeral"}}],${extra}"messages":[`,
    ),
    ...parts.flatMap((item, index) => (index > 0 ? [Buffer.from(separator), item] : [item])),
    Buffer.from('],"tools":[{"name":"f","input_schema":{"type":"object"}}]}'),
  ]);
}

/**
 * Two conversations opening with the same bytes, interleaved; one edits, rewinds, re-spaces its
 * history. A long `system` makes every body one the proxy reads into reused memory (32 KB–4 MB).
 */
function hostileSequence(system = 'sys'): Buffer[] {
  const bodyOf = (items: Array<number | Buffer>, separator = ',', extra = '') => bodyOfItems(items, separator, extra, system);
  const other = Buffer.from('{"role":"assistant","content":[{"type":"text","text":"the other conversation"}]}');
  return [
    bodyOf([0]),
    bodyOf([0, other, 8]),
    bodyOf([0, 1, 2]),
    bodyOf([0, other, 8, 7, 8]),
    bodyOf([0, 1, 2, 3, 4]),
    bodyOf([0, 1, 2, 3, 4, 5, 6]),
    // Edited in the middle (the tool result's bytes), then rewound, then CRLF between items.
    bodyOf([
      0,
      1,
      Buffer.from('{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"edited"}]}'),
      3,
      4,
      5,
      6,
    ]),
    bodyOf([0, 1, 2, 3]),
    bodyOf([0, 1, 2, 3, 4, 5, 6, 7, 8], ',\r\n '),
    bodyOf([0, 1, 2, 3, 4, 5, 6, 7, 8], ',\r\n ', '"messages":"shadowed",'),
    bodyOf([0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 6], ',\r\n '),
    bodyOf([0, other, 8, 7, 8, 7, 4]),
  ];
}

async function run(url: string, proxy: RunningProxy, bodies: Buffer[]) {
  const statuses: number[] = [];
  for (const body of bodies) {
    statuses.push(await postBytes(url, body));
    await proxy.settled();
  }
  return statuses;
}

/**
 * The bytes without the markers and diagnostics the plan may remove or add, a one-text-block
 * content written as its string (a marked string content becomes such a block).
 */
const withoutMarkers = (bytes: Buffer) =>
  bytes
    .toString('latin1')
    .replace(/,?"cache_control":\{"type":"ephemeral"(,"ttl":"1h")?\}/g, '')
    .replace(/,?"diagnostics":\{"previous_message_id":(null|"[^"]*")\}/g, '')
    .replace(/"content":\[\{"type":"text","text":("(?:[^"\\]|\\.)*")\}\]/g, '"content":$1');

type Break = { cause: unknown; before: unknown; after: unknown; byteOffset: unknown };

/** The `cache.break` events' explanation fields. */
const breaksOf = (events: unknown[]): Break[] =>
  events
    .filter((event) => (event as unknown[])[0] === 'cache.break')
    .map((event) => {
      const { cause, before, after, byteOffset } = (event as [string, string, Record<string, unknown>])[2];
      return { cause, before, after, byteOffset };
    });

/** Each miss (`replyTo`) explained from the body sent before it and its own, as a fresh detector reads them. */
function breaksBetween(sent: Buffer[]): Break[] {
  const found = sent.flatMap((body, index) => {
    if (index % 3 !== 2) return [];
    const detector = createBreakDetector();
    detector.observe(JSON.parse(sent[index - 1]!.toString()), { at: 0 });
    const usage = anthropicAdapter.parseUsage(JSON.parse(replyTo(index)));
    const explained = detector.observe(JSON.parse(body.toString()), { at: 1, usage });
    return explained
      ? [{ cause: explained.cause, before: explained.before, after: explained.after, byteOffset: explained.byteOffset }]
      : [];
  });
  expect(found.length).toBeGreaterThan(1);
  return found;
}

describe('the proxy over real HTTP, fast paths against plain ones', () => {
  it('pass-through: forwards every byte and records what the whole-body parse records (resumed key fields)', async () => {
    const bodies = hostileSequence();
    const fast = await proxyWith({});
    const plain = await proxyWith({ capture: () => {} });
    expect(await run(fast.proxy.url, fast.proxy, bodies)).toEqual(bodies.map(() => 200));
    await run(plain.proxy.url, plain.proxy, bodies);
    expect(fast.arrivals.map((arrival) => arrival.body)).toEqual(bodies);
    expect(fast.events.length).toBeGreaterThan(bodies.length);
    expect(fast.events).toEqual(plain.events);
    expect(breaksOf(fast.events)).toEqual(breaksBetween(bodies));
  });

  it('pass-through of bodies read into reused memory: every byte, and each miss explained from the kept previous body', async () => {
    const bodies = hostileSequence(`long system ${'lorem ipsum '.repeat(2800)}`);
    const fast = await proxyWith({});
    const plain = await proxyWith({ capture: () => {} });
    expect(await run(fast.proxy.url, fast.proxy, bodies)).toEqual(bodies.map(() => 200));
    await run(plain.proxy.url, plain.proxy, bodies);
    expect(fast.arrivals.map((arrival) => arrival.body)).toEqual(bodies);
    expect(fast.events).toEqual(plain.events);
    expect(breaksOf(fast.events)).toEqual(breaksBetween(bodies));
  });

  it('pass-through of large bodies 8 at a time: each arrives as its client sent it, whatever the others', async () => {
    const bodies = Array.from({ length: 24 }, (_, index) =>
      bodyOfItems(
        [0, 1, 2, 3],
        ',',
        '',
        `conversation ${index % 4} request ${index} ${String(index % 10).repeat(60_000 + 997 * index)}`,
      ),
    );
    const { proxy, arrivals } = await proxyWith({});
    for (let start = 0; start < bodies.length; start += 8) {
      const statuses = await Promise.all(bodies.slice(start, start + 8).map((body) => postBytes(proxy.url, body)));
      expect(statuses).toEqual(statuses.map(() => 200));
    }
    await proxy.settled();
    const sorted = (list: Buffer[]) => list.map((body) => body.toString('latin1')).sort();
    expect(sorted(arrivals.map((arrival) => arrival.body))).toEqual(sorted(bodies));
  });

  it('--plan: the node transport writes the bytes fetch sends, the client’s but for markers, with their length', async () => {
    const bodies = hostileSequence();
    const viaNode = await proxyWith({ plan: true });
    const viaFetch = await proxyWith({ plan: true, fetch: globalThis.fetch });
    await run(viaNode.proxy.url, viaNode.proxy, bodies);
    await run(viaFetch.proxy.url, viaFetch.proxy, bodies);
    expect(viaNode.arrivals.length).toBe(bodies.length);
    for (const [index, arrival] of viaNode.arrivals.entries()) {
      expect(arrival.length).toBe(String(arrival.body.byteLength));
      expect(arrival.body.equals(viaFetch.arrivals[index]!.body), `request ${index}`).toBe(true);
      expect(withoutMarkers(arrival.body), `request ${index}`).toBe(withoutMarkers(bodies[index]!));
      // Planned, not forwarded as it came (a body the plan cannot scan goes out unchanged, silently).
      expect(arrival.body.includes('"diagnostics":'), `request ${index}`).toBe(true);
    }
    expect(viaNode.events).toEqual(viaFetch.events);
    expect(breaksOf(viaNode.events)).toEqual(breaksBetween(viaNode.arrivals.map((arrival) => arrival.body)));
  });
});
