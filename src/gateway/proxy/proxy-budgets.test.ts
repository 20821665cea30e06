import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn } from '../test-support/sessions.js';
import { createConversationTracker } from './conversation-tracker.js';
import { startProxy } from './start-proxy.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const counters = { anthropic: { name: 'x', exact: false, countText: () => 1, countBlock: () => 1 } };
const tracker = (maxBytes: number, maxConversations = 100) =>
  createConversationTracker(undefined, { ...counters, openai: counters.anthropic }, { maxBytes, maxConversations });
const previous = (size: number) => ({ bytes: new Uint8Array(size), at: 0, cachedTokens: 0 });

describe('conversation tracker byte budget', () => {
  it('forgets the least recently active conversations once their previous bodies exceed the budget', () => {
    const conversations = tracker(1_000);
    for (const id of ['a', 'b', 'c']) conversations.remember(conversations.get(id, 'anthropic'), previous(400));
    expect(conversations.size).toBe(2);
    expect(conversations.bytes).toBe(800);
    expect(conversations.evictions).toBe(1);
    // 'b' used again becomes the newest: 'c' is the oldest and goes next.
    conversations.get('b', 'anthropic');
    conversations.remember(conversations.get('d', 'anthropic'), previous(400));
    expect(conversations.bytes).toBeLessThanOrEqual(1_000);
    expect(conversations.evictions).toBe(2);
    expect(conversations.get('b', 'anthropic').previous).not.toBeNull();
    // Replacing a conversation's previous body re-charges it rather than adding to it.
    conversations.remember(conversations.get('d', 'anthropic'), previous(100));
    expect(conversations.bytes).toBe(500);
  });

  it('does not keep a body larger than the whole budget, nor evict others for it', () => {
    const conversations = tracker(1_000);
    conversations.remember(conversations.get('a', 'anthropic'), previous(600));
    const huge = conversations.get('huge', 'anthropic');
    conversations.remember(huge, previous(5_000));
    expect(huge.previous).toBeNull();
    expect(conversations.bytes).toBe(600);
    expect(conversations.evictions).toBe(0);
  });

  it('charges a parsed history twice its bytes, with the previous body, and keeps neither beyond the budget', () => {
    const conversations = tracker(1_000);
    const history = (size: number) => ({
      bytes: new Uint8Array(size),
      key: 'messages',
      base: 0,
      starts: [],
      ends: [],
      items: [],
    });
    const a = conversations.get('a', 'anthropic');
    conversations.remember(a, previous(300));
    conversations.keepHistory(a, history(300));
    expect(conversations.bytes).toBe(900);
    const b = conversations.get('b', 'anthropic');
    conversations.keepHistory(b, history(200));
    // 'a' (900) and 'b' (400) exceed 1,000: the older one goes.
    expect(conversations.evictions).toBe(1);
    expect(conversations.bytes).toBe(400);
    conversations.remember(b, previous(700));
    // 700 + 2 × 200 is over the budget on its own: the history goes, the previous body stays.
    expect(b.history).toBeUndefined();
    expect(conversations.bytes).toBe(700);
    conversations.keepHistory(b, null);
    expect(conversations.bytes).toBe(700);
  });

  it('counts evictions by number as well', () => {
    const conversations = tracker(1_000_000, 2);
    for (const id of ['a', 'b', 'c', 'd']) conversations.get(id, 'anthropic');
    expect(conversations.size).toBe(2);
    expect(conversations.evictions).toBe(2);
  });
});

describe('cachet proxy: memory by bytes', () => {
  it('holds previous bodies and plan models within their byte budgets, evictions counted', async () => {
    // Planned bodies are the client's plus markers and diagnostics (well under 200 bytes more). Under
    // --plan a conversation holds its previous sent body and its parsed client body (charged twice).
    const bodyBytes = JSON.stringify(anthropicTurn(2, { conversation: 'c0' })).length + 200;
    harness = await startHarness({
      // Plan models are charged four times a body (their measured heap): two conversations fit.
      proxy: { plan: true, maxConversationBytes: 9 * bodyBytes, maxPlanModelBytes: 8 * bodyBytes },
    });
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
    for (let conversation = 0; conversation < 6; conversation++) {
      await client.messages.create(anthropicTurn(2, { conversation: `c${conversation}` }));
    }
    await harness.flush();
    const stats = harness.proxy.stats();
    expect(stats.conversationBytes).toBeLessThanOrEqual(9 * bodyBytes);
    expect(stats.conversations).toBe(3);
    expect(stats.evictions.conversations).toBe(3);
    expect(stats.planModelBytes).toBeLessThanOrEqual(8 * bodyBytes);
    expect(stats.planModelBytes).toBeGreaterThan(6 * bodyBytes);
    expect(stats.evictions.planModels).toBe(4);
    // Every exchange is still recorded: budgets bound memory, never the trace.
    expect(await harness.store.events({ types: ['usage.recorded'] })).toHaveLength(6);
  });

  it('answers an over-limit chunked upload with a 413 a fetch() client can read, before the upload ends', async () => {
    const proxy = await startProxy({ upstream: 'http://127.0.0.1:9', maxBodyBytes: 1_000_000 });
    const upload = new AbortController();
    try {
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      // The upload never ends on its own (it stops only when the test aborts it), so a 413 that
      // arrives at all arrived before the upload ended: no bound on how far the client got first
      // that a loaded machine could cross. Past 1 GB it ends, and the count below fails.
      const endlessUpTo = 1024 * 1024 * 1024;
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled >= endlessUpTo) return controller.close();
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const reply = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
        signal: upload.signal,
      } as RequestInit);
      expect(reply.status).toBe(413);
      expect(await reply.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
      expect(pulled).toBeLessThan(endlessUpTo);
    } finally {
      upload.abort();
      await proxy.close();
    }
  });
});

describe('conversation tracker: what it holds is what it counts', () => {
  it('keeps a body that is a view into a larger buffer as a copy of its own size', () => {
    const conversations = tracker(1_000);
    const socketRead = new Uint8Array(64 * 1024);
    const body = socketRead.subarray(300, 700);
    const conversation = conversations.get('a', 'anthropic');
    conversations.remember(conversation, { bytes: body, at: 0, cachedTokens: 0 });
    expect(conversation.previous!.bytes.byteLength).toBe(400);
    expect((conversation.previous!.bytes as Uint8Array).buffer.byteLength).toBe(400);
    const own = new Uint8Array(300);
    conversations.remember(conversation, { bytes: own, at: 1, cachedTokens: 0 });
    expect(conversation.previous!.bytes).toBe(own);
  });
});
