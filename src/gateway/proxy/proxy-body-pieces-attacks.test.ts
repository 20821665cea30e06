import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { mulberry32 } from '../../model/mulberry32.js';
import { closersAfterEach, listenForTest, okReply, postPieces, refuseUnauthorized } from '../test-support/raw-http.js';
import { type RunningProxy, type StartProxyOptions, startProxy } from './start-proxy.js';

/**
 * Attacks on how pass-through reads a request body that arrives in many socket chunks (32 KB and
 * more: the body is assembled from its pieces, possibly in memory reused between exchanges), over
 * real HTTP. The client writes each body in hostile pieces: cut inside a UTF-8 sequence, inside a
 * JSON string or escape, empty writes, one-byte pieces, chunked or with a content-length. Several
 * exchanges are in flight at once (different conversations, some opening with the same bytes),
 * the upstream answers them in a seeded order (some before reading the body, some with an
 * error), and bodies grow, are edited mid-history, rewound and repeated byte for byte. Two
 * conversations told apart only by their header send the same bytes (what one compared must not
 * stand for the other's kept body).
 *
 * Checked against plain references: every body the upstream received equals the client's bytes;
 * every event the proxy recorded, conversation by conversation, equals what a proxy that parses
 * each body whole (a capture) records when the same bodies come one at a time in one write.
 */

const REPLY = okReply('msg_pieces', 5000);
const MISS = REPLY.replace('"cache_read_input_tokens":5000', '"cache_read_input_tokens":0');
const REQUEST_HEADER = 'x-attack-request';

const closers = closersAfterEach();

interface Held {
  id: number;
  answer: () => void;
}

/**
 * An upstream that holds every request until told: `arrivals` by request id (its body as
 * received), `waitFor(n)` resolves once n requests are held. A request `early` names is answered
 * 401 at once, its body never read; one `eager` names is held after its body's first chunk, the
 * rest read only once the round's replies are done (the proxy is still writing it meanwhile).
 */
async function heldUpstream() {
  const arrivals = new Map<number, Buffer>();
  const held: Held[] = [];
  const paused: IncomingMessage[] = [];
  let waiting: { count: number; resolve: () => void } | null = null;
  let arriving: { count: number; resolve: () => void } | null = null;
  const arrive = (id: number, body: Buffer) => {
    arrivals.set(id, body);
    if (arriving && arrivals.size >= arriving.count) arriving.resolve();
  };
  const hold = (entry: Held) => {
    held.push(entry);
    if (waiting && held.length >= waiting.count) waiting.resolve();
  };
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const id = Number(incoming.headers[REQUEST_HEADER]);
    if (early(id)) {
      refuseUnauthorized(incoming, outgoing);
      return;
    }
    const chunks: Buffer[] = [];
    const answer = () => outgoing.writeHead(200, { 'content-type': 'application/json' }).end(id % 3 === 2 ? MISS : REPLY);
    incoming.on('data', (chunk: Buffer) => {
      // An eager request is held after its first chunk: answered, the rest of its body read later.
      if (eager(id) && chunks.length === 0) {
        incoming.pause();
        paused.push(incoming);
        hold({ id, answer });
      }
      chunks.push(chunk);
    });
    incoming.on('end', () => arrive(id, Buffer.concat(chunks)));
    if (!eager(id)) incoming.on('end', () => hold({ id, answer }));
  });
  const url = await listenForTest(server, closers);
  return {
    url,
    arrivals,
    held,
    /** Read the bodies held back so far. */
    readPaused: () => {
      for (const incoming of paused.splice(0)) incoming.resume();
    },
    waitFor: (count: number) =>
      held.length >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { count, resolve })),
    /** Resolves once `count` bodies were read whole. */
    arrived: (count: number) =>
      arrivals.size >= count ? Promise.resolve() : new Promise<void>((resolve) => (arriving = { count, resolve })),
  };
}

/** POST `pieces` one write each (chunked, or with the whole length declared), as request `id` of `conversation`. */
const post = (url: string, id: number, pieces: Buffer[], chunked: boolean, conversation?: string) =>
  postPieces(url, pieces, chunked, {
    [REQUEST_HEADER]: String(id),
    ...(conversation ? { 'x-cachet-conversation': conversation } : {}),
  });

async function proxyOn(upstreamUrl: string, options: Omit<StartProxyOptions, 'upstream'> = {}) {
  const bus = new EventBus();
  const events: Array<[string, string, unknown]> = [];
  bus.onAny((event: CachetEvent) => {
    const payload = { ...(event.payload as unknown as Record<string, unknown>) };
    delete payload.durationMs;
    events.push([event.type, event.sessionId, payload]);
  });
  const proxy: RunningProxy = await startProxy({ upstream: upstreamUrl, bus, instance: 'attack-pieces', ...options });
  closers.push(() => proxy.close());
  return { proxy, events };
}

/** Text with what a cut may split: 2-, 3- and 4-byte UTF-8, escapes, quotes. */
function hostileText(random: () => number, tag: string, size: number): string {
  const alphabet = ['é', '€', '😀', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', 'a', ' ', 'ß', '\\n'];
  let text = `${tag} `;
  while (text.length < size) text += alphabet[Math.floor(random() * alphabet.length)]!.repeat(1 + Math.floor(random() * 40));
  return text;
}

/** A message as a client writes it (JSON text; escapes kept as written). */
function messageJson(random: () => number, index: number, tag: string): string {
  const role = index % 2 === 0 ? 'user' : 'assistant';
  const text = hostileText(random, tag, 2_000 + Math.floor(random() * 30_000));
  // A user message is a new question or a tool's result (a turn or a step in the records).
  if (role === 'user' && random() < 0.4) {
    return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t${index}","content":"${text}"}]}`;
  }
  return `{"role":"${role}","content":[{"type":"text","text":"${text}"}]}`;
}

interface Conversation {
  opening: string;
  messages: string[];
}

function bodyOf(conversation: Conversation): Buffer {
  return Buffer.from(
    `{"model":"claude-sonnet-4-5","max_tokens":10,"system":[{"type":"text","text":"${conversation.opening}"}],"messages":[${conversation.messages.join(',')}]}`,
  );
}

/** The next body of a conversation: mostly grown, sometimes edited mid-history, rewound, or the same again. */
function nextBody(random: () => number, conversation: Conversation, tag: string): Buffer {
  const roll = random();
  const { messages } = conversation;
  if (roll < 0.55 || messages.length < 3) {
    const count = 1 + Math.floor(random() * 3);
    for (let index = 0; index < count; index++) messages.push(messageJson(random, messages.length, `${tag}.${index}`));
  } else if (roll < 0.7) {
    const at = 1 + Math.floor(random() * (messages.length - 1));
    messages[at] = messageJson(random, at, `${tag}.edited`);
  } else if (roll < 0.85) {
    messages.length = 1 + Math.floor(random() * (messages.length - 1));
  }
  return bodyOf(conversation);
}

/** Hostile cuts: inside UTF-8 sequences and escapes, one-byte and empty pieces, a few large ones. */
function piecesOf(random: () => number, body: Buffer): Buffer[] {
  const cuts = new Set<number>();
  const count = 2 + Math.floor(random() * 12);
  while (cuts.size < count) {
    let at = 1 + Math.floor(random() * (body.byteLength - 1));
    // Move the cut inside the nearest multi-byte sequence or escape when there is one close by.
    for (let look = 0; look < 64 && at + look < body.byteLength - 1; look++) {
      const byte = body[at + look]!;
      if ((byte & 0xc0) === 0x80 || byte === 0x5c) {
        at += look + (byte === 0x5c ? 1 : 0);
        break;
      }
    }
    cuts.add(at);
    if (random() < 0.2 && at + 1 < body.byteLength) cuts.add(at + 1);
  }
  const sorted = [...cuts].sort((left, right) => left - right);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const at of sorted) {
    pieces.push(body.subarray(from, at));
    if (random() < 0.15) pieces.push(Buffer.alloc(0));
    from = at;
  }
  pieces.push(body.subarray(from));
  return pieces;
}

interface Request {
  id: number;
  conversation: number;
  body: Buffer;
  pieces: Buffer[];
  chunked: boolean;
  /** The client's conversation header (two conversations may then send the very same bytes). */
  header?: string;
}

/** Rounds of requests in flight together, at most one per conversation in a round. */
function hostileRounds(seed: number, rounds: number): Request[][] {
  const random = mulberry32(seed);
  // Conversations 0 and 1 open with the same bytes; 2 and 3 have their own.
  const openings = ['shared opening é😀', 'shared opening é😀', 'third 😀', 'fourth \\"quoted\\"'];
  const conversations: Conversation[] = openings.map((opening) => ({
    opening,
    messages: [`{"role":"user","content":[{"type":"text","text":"${hostileText(random, 'start', 40_000)}"}]}`],
  }));
  let id = 0;
  return Array.from({ length: rounds }, () => {
    const members = [0, 1, 2, 3].filter(() => random() < 0.7);
    if (members.length === 0) members.push(Math.floor(random() * 4));
    return members.map((index) => {
      const body = nextBody(random, conversations[index]!, `s${seed}.r${id}`);
      return { id: id++, conversation: index, body, pieces: piecesOf(random, body), chunked: random() < 0.5 };
    });
  });
}

/** Events by conversation, in the order each conversation recorded them. */
function byConversation(events: Array<[string, string, unknown]>): Map<string, unknown[]> {
  const grouped = new Map<string, unknown[]>();
  for (const [type, session, payload] of events) {
    if (!grouped.has(session)) grouped.set(session, []);
    grouped.get(session)!.push([type, payload]);
  }
  return grouped;
}

/** Requests the upstream refuses before reading their body. */
const early = (id: number) => id % 11 === 7;
/** Requests the upstream answers at once, reading their body only later. */
const eager = (id: number) => id % 7 === 3;

type Upstream = Awaited<ReturnType<typeof heldUpstream>>;

/**
 * The rounds through the fast proxy. Each round's answers go out in a seeded order. `overlapped`:
 * the next round's bodies are sent as soon as a round is answered, so they are read while the
 * last round's records are still being made (memory given back too early would be written over).
 */
async function runRounds(rounds: Request[][], upstream: Upstream, proxy: RunningProxy, seed: number, overlapped: boolean) {
  const random = mulberry32(seed + 100);
  const send = (round: Request[]) =>
    round.map((request) => post(proxy.url, request.id, request.pieces, request.chunked, request.header));
  let replies = send(rounds[0]!);
  for (const [index, round] of rounds.entries()) {
    await upstream.waitFor(round.filter((request) => !early(request.id)).length);
    const pending = upstream.held.splice(0);
    while (pending.length > 0) pending.splice(Math.floor(random() * pending.length), 1)[0]!.answer();
    const next = overlapped && index + 1 < rounds.length ? send(rounds[index + 1]!) : null;
    const statuses = await Promise.all(replies);
    upstream.readPaused();
    expect(statuses).toEqual(round.map((request) => (early(request.id) ? 401 : 200)));
    if (!next) await proxy.settled();
    replies = next ?? (index + 1 < rounds.length ? send(rounds[index + 1]!) : []);
  }
  await proxy.settled();
}

/** The same bodies through a proxy that parses each whole (a capture), one at a time, each in one write. */
async function plainEvents(requests: Request[]) {
  const upstream = await heldUpstream();
  const plain = await proxyOn(upstream.url, { capture: () => {} });
  for (const request of requests) {
    const reply = post(plain.proxy.url, request.id, [request.body], false, request.header);
    if (!early(request.id)) {
      await upstream.waitFor(1);
      upstream.held.splice(0)[0]!.answer();
    }
    await reply;
    upstream.readPaused();
    await plain.proxy.settled();
  }
  return plain.events;
}

describe('pass-through bodies read from many socket chunks, several exchanges in flight', () => {
  for (const [seed, overlapped] of [
    [1, false],
    [2, false],
    [3, true],
    [4, true],
  ] as const) {
    it(`seed ${seed}${overlapped ? ', rounds overlapped' : ''}: the upstream gets the client's bytes, and the records equal a whole parse of bodies sent alone`, async () => {
      const rounds = hostileRounds(seed, 8);
      const requests = rounds.flat();
      expect(requests.reduce((most, request) => Math.max(most, request.body.byteLength), 0)).toBeGreaterThan(100_000);
      const upstream = await heldUpstream();
      const fast = await proxyOn(upstream.url);
      await runRounds(rounds, upstream, fast.proxy, seed, overlapped);
      await upstream.arrived(requests.filter((request) => !early(request.id)).length);
      for (const request of requests) {
        if (early(request.id)) continue;
        expect(upstream.arrivals.get(request.id)?.equals(request.body), `request ${request.id}`).toBe(true);
      }
      expect(fast.events.length).toBeGreaterThan(requests.length);
      expect(byConversation(fast.events)).toEqual(byConversation(await plainEvents(requests)));
    });
  }

  it('two conversations told apart by their header, sending the same bytes: each kept body is its own', async () => {
    const random = mulberry32(9);
    const item = (tag: string) => messageJson(random, 1, tag);
    const open = `{"role":"user","content":[{"type":"text","text":"${hostileText(random, 'open', 40_000)}"}]}`;
    const body = (items: string[]) =>
      Buffer.from(
        `{"model":"claude-sonnet-4-5","max_tokens":10,"system":[{"type":"text","text":"same"}],"messages":[${items.join(',')}]}`,
      );
    const [a1, b1, b2, b3, a4] = ['a1', 'b1', 'b2', 'b3', 'a4'].map(item);
    // B goes ahead; A, whose last body differs from B's after the opening, then sends B's history and more.
    const script: Array<[string, string[]]> = [
      ['A', [open, a1!]],
      ['B', [open, b1!]],
      ['B', [open, b1!, b2!]],
      ['A', [open, b1!, b2!, b3!]],
      ['B', [open, b1!, b2!, b3!]],
      // A miss (every third request): explained from the body A's tracker kept two requests back.
      ['A', [open, b1!, b2!, b3!, a4!]],
      ['A', [open, b1!, b2!, b3!, a4!, a1!]],
    ];
    const rounds = script.map(([header, items], id) => {
      const bytes = body(items);
      return [{ id, conversation: header === 'A' ? 0 : 1, body: bytes, pieces: piecesOf(random, bytes), chunked: false, header }];
    });
    const upstream = await heldUpstream();
    const fast = await proxyOn(upstream.url);
    await runRounds(rounds, upstream, fast.proxy, 9, false);
    const requests = rounds.flat();
    expect(fast.events.some(([type]) => type === 'cache.break')).toBe(true);
    expect(byConversation(fast.events)).toEqual(byConversation(await plainEvents(requests)));
  });
});
