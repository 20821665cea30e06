import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { bodyOfPieces, compactBody, joinedBody } from './body-pieces.js';
import { createConversationTracker } from './conversation-tracker.js';
import { jsonSpans, type ValueSpan } from './json-spans.js';
import { planCacheFields } from './plan-cache-fields.js';
import { SPLICE_INDEX_DEPTH, spliceCacheFields } from './splice-cache-fields.js';
import { nodeTransport, type UpstreamTransport } from './upstream-transport.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let server: Server | null = null;
let transport: UpstreamTransport | null = null;

afterEach(async () => {
  transport?.close();
  transport = null;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const clientBytes = () =>
  encoder.encode(
    JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      system: [{ type: 'text', text: 'Be exact.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'first' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'second' }] },
        { role: 'user', content: [{ type: 'text', text: 'third' }] },
      ],
    }),
  );

function spliced(bytes: Uint8Array) {
  const parsed = JSON.parse(decoder.decode(bytes)) as Record<string, unknown>;
  const context = { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: null };
  const planned = planCacheFields('anthropic', parsed, context, {});
  return spliceCacheFields('anthropic', bytes, jsonSpans(bytes, SPLICE_INDEX_DEPTH) as ValueSpan, parsed, planned);
}

describe('the planned body in pieces', () => {
  it('is views of the client’s bytes around the edits, never a copy of the whole body', () => {
    const bytes = clientBytes();
    const sent = spliced(bytes);
    if (sent instanceof Uint8Array) throw new Error('the plan edited nothing');
    const fromClient = sent.pieces.filter((piece) => piece.buffer === bytes.buffer);
    // Everything but the edits' own bytes (a marker, diagnostics) is the client's buffer itself.
    const edited = sent.pieces.filter((piece) => piece.buffer !== bytes.buffer);
    expect(fromClient.reduce((sum, piece) => sum + piece.byteLength, 0)).toBeGreaterThan(bytes.byteLength - 80);
    expect(edited.every((piece) => piece.byteLength < 80)).toBe(true);
    expect(sent.byteLength).toBe(joinedBody(sent).byteLength);
    expect(JSON.parse(decoder.decode(joinedBody(sent))).messages[2].content[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('joins only when asked, and keeps a body in memory of about its own size', () => {
    const own = encoder.encode('{"a":1}');
    expect(joinedBody(own)).toBe(own);
    expect(bodyOfPieces([own])).toBe(own);
    const pieces = bodyOfPieces([own.subarray(0, 3), encoder.encode('2'), own.subarray(4)]);
    expect(decoder.decode(joinedBody(pieces))).toBe('{"a2:1}');
    expect(compactBody(pieces)).toBe(pieces);
    // A piece of a 64 KB socket read would keep all of it alive: joined into a buffer of the body's size.
    const socketRead = new Uint8Array(64 * 1024);
    socketRead.set(own, 1000);
    const inRead = bodyOfPieces([socketRead.subarray(1000, 1003), encoder.encode(':2}')]);
    const kept = compactBody(inRead);
    expect(kept).toBeInstanceOf(Uint8Array);
    expect((kept as Uint8Array).buffer.byteLength).toBe(6);
    expect(decoder.decode(kept as Uint8Array)).toBe('{"a:2}');
    // A Buffer view into the read is copied into a buffer of its own size too (a Buffer's `slice` is a view).
    const keptView = compactBody(Buffer.from(socketRead.buffer, 1000, own.byteLength));
    expect((keptView as Uint8Array).buffer.byteLength).toBe(own.byteLength);
  });

  it('is what the tracker keeps as the previous body, not joined', () => {
    const conversations = createConversationTracker(
      undefined,
      { anthropic: anthropicEstimator(), openai: anthropicEstimator() },
      { maxBytes: 1_000_000 },
    );
    const conversation = conversations.get('a', 'anthropic');
    const sent = spliced(clientBytes());
    conversations.remember(conversation, { bytes: sent, at: 0, cachedTokens: 0 });
    expect(conversation.previous!.bytes).toBe(sent);
    expect(conversations.bytes).toBe(sent.byteLength);
  });

  it('reaches the upstream whole, with its length, through the node transport', async () => {
    let received: { length: string | undefined; body: string } | null = null;
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received = { length: request.headers['content-length'], body: Buffer.concat(chunks).toString('utf8') };
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    transport = nodeTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    const sent = spliced(clientBytes());
    const answer = await transport.send({ method: 'POST', pathAndQuery: '/v1/messages', headers: {}, body: sent }).answer;
    answer.body.resume();
    await new Promise((resolve) => answer.body.on('end', resolve));
    expect(received).toEqual({ length: String(sent.byteLength), body: decoder.decode(joinedBody(sent)) });
  });
});
