import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { mulberry32 } from '../../model/mulberry32.js';
import { closersAfterEach, listenForTest, okReply, postPieces, refuseUnauthorized } from '../test-support/raw-http.js';
import { createProxyApp } from './create-proxy-app.js';
import { startProxy } from './start-proxy.js';

/**
 * Attacks on `--plan` bodies read into reused slabs (f99359c), over real HTTP, as hostile clients
 * send them: several conversations at once, two of them told apart only by their
 * `x-cachet-conversation` header (the same bytes, the same opening for the span reader), bodies
 * written in seeded pieces (chunked or with a length), some refused 401 by the upstream (their
 * exchange ends before the record stage), histories that grow, are edited and rewound, a body
 * nested too deep to plan (forwarded unchanged from the slab), and `--volatile auto` (the move
 * makes a body of its own).
 *
 * Reference: the Hono app (`createProxyApp`), which reads each body into memory of its own, fed
 * the same bodies of each conversation in the same order. Every body the upstream receives from
 * the node proxy must equal, byte for byte, the one it receives from the app.
 */

const closers = closersAfterEach();
const TAG = 'x-attack-tag';
const REPLY = okReply('msg_plan_slabs', 5000);

const MISS = REPLY.replace('"cache_read_input_tokens":5000', '"cache_read_input_tokens":0');

/** Tags refused with 401 before the body is read. */
const refused = (tag: string) => tag.endsWith('.r');

async function recordingUpstream() {
  const arrivals = new Map<string, Buffer>();
  const server: Server = createServer((incoming, outgoing) => {
    const tag = String(incoming.headers[TAG]);
    if (refused(tag)) {
      refuseUnauthorized(incoming, outgoing);
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      arrivals.set(tag, Buffer.concat(chunks));
      // Some replies read nothing (the same bodies on both sides): misses the break detector explains from the kept body.
      const missed = arrivals.get(tag)!.byteLength % 3 === 0;
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(missed ? MISS : REPLY);
    });
  });
  return { url: await listenForTest(server, closers), arrivals };
}

/** `body` cut at `cuts` (ascending): one piece before each cut and one after the last. */
const cutAt = (body: Buffer, cuts: number[]) =>
  [0, ...cuts].map((at, index) => body.subarray(at, cuts[index] ?? body.byteLength));

interface Conversation {
  header: string;
  messages: string[];
}

const words = (random: () => number, count: number) =>
  Array.from({ length: count }, () => ['é', 'wörd', '€', '\\"q\\"', 'line\\n', '😀', 'plain'][Math.floor(random() * 7)]).join(
    ' ',
  );

function nextBody(random: () => number, conversation: Conversation, tag: string, deep: boolean): Buffer {
  const { messages } = conversation;
  const roll = random();
  if (roll < 0.6 || messages.length < 3) {
    for (let count = 0; count < 1 + Math.floor(random() * 2); count++) {
      const role = messages.length % 2 === 0 ? 'user' : 'assistant';
      messages.push(
        `{"role":"${role}","content":[{"type":"text","text":"${tag} ${words(random, 800 + Math.floor(random() * 3000))}"}]}`,
      );
    }
  } else if (roll < 0.8) {
    const at = 1 + Math.floor(random() * (messages.length - 1));
    messages[at] = messages[at]!.replace('"text":"', '"text":"edited ');
  } else {
    messages.length = 1 + Math.floor(random() * (messages.length - 1));
    if (messages.length % 2 === 0) messages.pop();
  }
  const nested = deep ? `,"metadata":{"x":${'['.repeat(300)}${']'.repeat(300)}}` : '';
  const system = `[{"type":"text","text":"Today is 2026-11-28. ${'You are careful. '.repeat(600)}"},{"type":"text","text":"rules ${'rule '.repeat(2000)}"}]`;
  return Buffer.from(
    `{"model":"claude-sonnet-4-5","max_tokens":10,"n":12345678901234567890123,"n":1${nested},"system":${system},"messages":[${messages.join(',')}]}`,
  );
}

/** Each session's events in order, without timings. */
function eventsBySession() {
  const bus = new EventBus();
  const bySession = new Map<string, string[]>();
  bus.onAny((event: CachetEvent) => {
    const payload = { ...(event.payload as unknown as Record<string, unknown>) };
    delete payload.durationMs;
    const list = bySession.get(event.sessionId) ?? [];
    list.push(`${event.type} ${JSON.stringify(payload)}`);
    bySession.set(event.sessionId, list);
  });
  return { bus, bySession };
}

async function run(seed: number, volatile: 'auto' | 'off') {
  const random = mulberry32(seed);
  const node = await recordingUpstream();
  const app = await recordingUpstream();
  const nodeEvents = eventsBySession();
  const appEvents = eventsBySession();
  const proxy = await startProxy({ upstream: node.url, plan: { volatile }, instance: 'plan-slabs', bus: nodeEvents.bus });
  closers.push(() => proxy.close());
  const hono = createProxyApp({ upstream: app.url, plan: { volatile }, instance: 'plan-slabs', bus: appEvents.bus });
  const opening = '{"role":"user","content":[{"type":"text","text":"Open the project."}]}';
  const conversations: Conversation[] = ['a', 'b', 'twin-1', 'twin-2'].map((header) => ({ header, messages: [opening] }));
  const sent: Array<{ tag: string; body: Buffer; header: string }> = [];
  for (let round = 0; round < 6; round++) {
    const batch = conversations.map((conversation, index) => {
      const tag = `r${round}.c${index}${random() < 0.15 ? '.r' : ''}`;
      const deep = round === 3 && index === 1;
      // The twins send the same bytes: twin-2 repeats twin-1's history.
      if (conversation.header === 'twin-2') conversation.messages = [...conversations[2]!.messages];
      const body =
        conversation.header === 'twin-2'
          ? Buffer.from(sent.at(-1)!.body)
          : nextBody(random, conversation, `${conversation.header}.${round}`, deep);
      const item = { tag, body, header: conversation.header };
      sent.push(item);
      return item;
    });
    const statuses = await Promise.all(
      batch.map(({ tag, body, header }) => {
        const cuts = new Set<number>();
        while (cuts.size < 6) cuts.add(1 + Math.floor(random() * (body.byteLength - 1)));
        return postPieces(
          proxy.url,
          cutAt(
            body,
            [...cuts].sort((x, y) => x - y),
          ),
          random() < 0.5,
          {
            [TAG]: tag,
            'x-cachet-conversation': header,
          },
        );
      }),
    );
    expect(statuses).toEqual(batch.map(({ tag }) => (refused(tag) ? 401 : 200)));
    await proxy.settled();
    for (const { tag, body, header } of batch) {
      const response = await hono.app.fetch(
        new Request('http://127.0.0.1/v1/messages', {
          method: 'POST',
          body: new Uint8Array(body),
          headers: { 'content-type': 'application/json', [TAG]: tag, 'x-cachet-conversation': header },
        }),
      );
      await response.arrayBuffer();
    }
    await hono.settled();
  }
  expect([...node.arrivals.keys()].sort()).toEqual([...app.arrivals.keys()].sort());
  for (const [tag, arrival] of node.arrivals) expect(arrival.equals(app.arrivals.get(tag)!), tag).toBe(true);
  // What was judged and recorded from each body (the parsed history reused between bodies) is the app's too.
  expect(nodeEvents.bySession).toEqual(appEvents.bySession);
  const all = [...nodeEvents.bySession.values()].flat();
  expect(all.some((event) => event.startsWith('cache.break'))).toBe(true);
  if (volatile === 'auto') expect(all.some((event) => event.startsWith('volatile.moved'))).toBe(true);
  return node.arrivals.size;
}

describe('--plan bodies in reused slabs, as hostile clients send them', () => {
  it.each([
    [1, 'off'],
    [2, 'off'],
    [3, 'auto'],
  ] as const)('seed %i, --volatile %s: every body upstream is the one the app (its own memory) sends', async (seed, volatile) => {
    expect(await run(seed, volatile)).toBeGreaterThan(15);
  });
});
