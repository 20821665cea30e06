import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { mulberry32 } from '../../model/mulberry32.js';
import { closersAfterEach, listenForTest, postBytes } from '../test-support/raw-http.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

/**
 * Attacks on `--plan`'s resumed work over real HTTP: the span reader resumed past the bytes a
 * conversation's next body repeats, `parseReusing` skipping the compare of what the reader
 * compared (its `lastShared`) and reusing the last body's frozen items, and the block scan
 * resumed from the last body's messages checkpoint. The same hostile conversations go through
 * a second proxy with each body's history list opened by a different run of spaces (the same
 * JSON, but no byte of its history at the offsets of the last body's: nothing is resumed or
 * reused there). Every planned body the upstream receives must parse to the same value, and
 * the plan's breakpoints and the recorded turns must be the same.
 *
 * Conversations: two open with the same bytes, interleaved; histories hold string contents,
 * client markers early on, thinking and empty text blocks, tool use; they grow past 16 KB, are
 * edited mid-history, rewound, sent again byte for byte, their newest marker moves, their system
 * prompt switches between a string and blocks.
 */

const closers = closersAfterEach();

/** An upstream answering every request at once, each with its own message id; every third reads nothing. */
async function upstream() {
  const arrivals: Buffer[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const index = arrivals.length;
      arrivals.push(Buffer.concat(chunks));
      const read = index % 3 === 2 ? 0 : 5000;
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `msg_${index}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'ok' }],
          usage: { input_tokens: 20, cache_read_input_tokens: read, cache_creation_input_tokens: 0, output_tokens: 2 },
        }),
      );
    });
  });
  const url = await listenForTest(server, closers);
  return { url, arrivals };
}

async function planningProxy() {
  const { url, arrivals } = await upstream();
  const bus = new EventBus();
  const forwarded: Array<[string, unknown, unknown, unknown]> = [];
  bus.onAny((event: CachetEvent) => {
    if (event.type !== 'proxy.forwarded') return;
    const payload = event.payload as unknown as Record<string, unknown>;
    forwarded.push([event.sessionId, payload.turn, payload.step, payload.plannedBreakpoints]);
  });
  const proxy: RunningProxy = await startProxy({ upstream: url, bus, instance: 'attack-plan', plan: true });
  closers.push(() => proxy.close());
  return { proxy, arrivals, forwarded };
}

/** A history item as a client writes it: text, a string content, thinking, empty text, tool use; sometimes a marker. */
function itemOf(random: () => number, index: number, tag: string, size: number): string {
  const role = index % 2 === 0 ? 'user' : 'assistant';
  const text = `${tag} ${'é word \\"q\\" '.repeat(size)}`;
  const marker = random() < 0.25 ? `,"cache_control":{"type":"ephemeral"${random() < 0.3 ? ',"ttl":"1h"' : ''}}` : '';
  const roll = random();
  if (roll < 0.25) return `{"role":"${role}","content":"${text}"}`;
  if (roll < 0.35 && role === 'assistant') {
    return `{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"${text}"${marker}}]}`;
  }
  if (roll < 0.45) return `{"role":"${role}","content":[{"type":"text","text":""},{"type":"text","text":"${text}"${marker}}]}`;
  if (roll < 0.55 && role === 'assistant') {
    return `{"role":"assistant","content":[{"type":"tool_use","id":"t${tag}","name":"read","input":{"path":"${tag}"}${marker}}]}`;
  }
  return `{"role":"${role}","content":[{"type":"text","text":"${text}"${marker}}]}`;
}

interface Conversation {
  opening: string;
  system: 'string' | 'blocks';
  items: string[];
  /** The client marks its newest message (a marker that moves every request). */
  marksNewest: boolean;
}

/** The body's bytes; `spaces` opens the history list (the plain run's way of sharing no history bytes). */
function bodyOf(conversation: Conversation, spaces: number): Buffer {
  const system =
    conversation.system === 'string'
      ? `"system":"${conversation.opening}"`
      : `"system":[{"type":"text","text":"${conversation.opening}","cache_control":{"type":"ephemeral"}}]`;
  const items = conversation.items.slice();
  if (conversation.marksNewest) {
    const last = items.length - 1;
    items[last] = items[last]!.replace(/("text":"[^"]*(?:\\.[^"\\]*)*")\}\]\}$/, '$1,"cache_control":{"type":"ephemeral"}}]}');
  }
  return Buffer.from(
    `{"model":"claude-sonnet-4-5","max_tokens":10,${system},"tools":[{"name":"read","input_schema":{"type":"object"}}],"messages":[${' '.repeat(spaces)}${items.join(',')}]}`,
  );
}

/** One step of a conversation. */
function step(random: () => number, conversation: Conversation, tag: string): void {
  const { items } = conversation;
  const roll = random();
  if (roll < 0.4 || items.length < 3) {
    const count = 1 + Math.floor(random() * 3);
    for (let index = 0; index < count; index++)
      items.push(itemOf(random, items.length, `${tag}.${index}`, 20 + Math.floor(random() * 300)));
  } else if (roll < 0.65) {
    const at = 1 + Math.floor(random() * (items.length - 1));
    items[at] = itemOf(random, at, `${tag}.edited`, 40);
  } else if (roll < 0.72) {
    items.length = 1 + Math.floor(random() * (items.length - 1));
  } else if (roll < 0.82) {
    conversation.marksNewest = !conversation.marksNewest;
  } else if (roll < 0.87) {
    conversation.system = conversation.system === 'string' ? 'blocks' : 'string';
  }
  // Otherwise the same body again.
}

function hostileSequence(seed: number, count: number): Array<{ conversation: Conversation; spaces: number; fast: Buffer }> {
  const random = mulberry32(seed);
  const opening = `{"role":"user","content":[{"type":"text","text":"${'start é '.repeat(2500)}"}]}`;
  const conversations: Conversation[] = [
    { opening: 'shared system', system: 'blocks', items: [opening], marksNewest: true },
    { opening: 'shared system', system: 'blocks', items: [opening], marksNewest: false },
    { opening: 'its own system', system: 'string', items: [opening], marksNewest: true },
  ];
  return Array.from({ length: count }, (_, index) => {
    const conversation = conversations[Math.floor(random() * conversations.length)]!;
    step(random, conversation, `s${seed}.${index}`);
    const snapshot = { ...conversation, items: conversation.items.slice() };
    return { conversation: snapshot, spaces: 1 + index, fast: bodyOf(snapshot, 0) };
  });
}

describe('--plan resumed past what a conversation repeats, against bodies that share no history bytes', () => {
  for (const seed of [5, 6, 7]) {
    it(`seed ${seed}: every planned body parses alike, with the same breakpoints and turns`, async () => {
      const sequence = hostileSequence(seed, 40);
      expect(Math.max(...sequence.map((entry) => entry.fast.byteLength))).toBeGreaterThan(40_000);
      const fast = await planningProxy();
      const plain = await planningProxy();
      for (const entry of sequence) {
        expect(await postBytes(fast.proxy.url, entry.fast)).toBe(200);
        await fast.proxy.settled();
        expect(await postBytes(plain.proxy.url, bodyOf(entry.conversation, entry.spaces))).toBe(200);
        await plain.proxy.settled();
      }
      expect(fast.arrivals).toHaveLength(sequence.length);
      for (const [index, arrival] of fast.arrivals.entries()) {
        // Planned (a body the plan cannot read goes out unchanged, silently).
        expect(arrival.includes('"diagnostics":'), `request ${index}`).toBe(true);
        expect(JSON.parse(arrival.toString()), `request ${index}`).toEqual(JSON.parse(plain.arrivals[index]!.toString()));
      }
      expect(fast.forwarded).toEqual(plain.forwarded);
    });
  }
});
