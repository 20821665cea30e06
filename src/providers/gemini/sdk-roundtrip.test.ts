import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { assemble } from '../../session/assemble.js';
import { CLOCK, fixtureSession, parallelToolLoop } from '../anthropic/test-support/fixtures.js';
import { createGeminiCacheSession } from './explicit-cache-session.js';
import { geminiAdapter } from './index.js';

interface Received {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: unknown;
}

/** A stand-in for generativelanguage.googleapis.com on 127.0.0.1: generateContent and the cachedContents calls. */
let server: Server;
let baseUrl: string;
const received: Received[] = [];
let cacheCount = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // The API version is the SDK's choice (v1 in SDK 3); paths are compared without it.
      const url = (request.url ?? '').replace(/^\/v1(?:beta)?\//, '/');
      const method = request.method ?? '';
      received.push({
        method,
        url,
        apiKey: request.headers['x-goog-api-key'] as string | undefined,
        body: text ? JSON.parse(text) : null,
      });
      let reply: unknown = {};
      if (url.includes(':generateContent')) {
        const usesCache = text.includes('"cachedContent"');
        reply = {
          candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
          usageMetadata: {
            promptTokenCount: 9000,
            cachedContentTokenCount: usesCache ? 8000 : 0,
            candidatesTokenCount: 3,
            thoughtsTokenCount: 5,
          },
        };
      } else if (method === 'POST' && url.startsWith('/cachedContents')) {
        cacheCount += 1;
        reply = {
          name: `cachedContents/c${cacheCount}`,
          model: 'models/gemini-2.5-pro',
          usageMetadata: { totalTokenCount: 8000 },
        };
      } else if (method === 'PATCH') {
        reply = { name: url.split('?')[0]!.slice(1) };
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

function client(): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'test-key-not-real', httpOptions: { baseUrl } });
}

const MODEL = 'gemini-2.5-pro';

describe('the Gemini SDK sends converted bodies unchanged', () => {
  it('implicit caching: system instruction and tools travel with the request', async () => {
    const { body } = geminiAdapter.convertRequest(parallelToolLoop({ model: MODEL }));
    const response = await client().models.generateContent(body);
    const arrived = received.at(-1)!;
    expect(arrived.method).toBe('POST');
    expect(arrived.url).toBe(`/models/${MODEL}:generateContent`);
    expect(arrived.apiKey).toBe('test-key-not-real');
    await expect(JSON.stringify(arrived.body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/sdk-roundtrip.implicit-caching-system-instruction-and-tools-travel-with-th.json',
    );
    expect(geminiAdapter.parseUsage(response)).toMatchObject({
      uncachedInputTokens: 9000,
      cacheReadTokens: 0,
      outputTokens: 8,
      reasoningTokens: 5,
    });
  });
});

describe('explicit cache lifecycle through the real client', () => {
  it('creates, extends, replaces when the tools change, and deletes at session end, with an event for each', async () => {
    const ai = client();
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => {
      if (event.type.startsWith('explicit_cache.') || event.type === 'warning.raised') events.push(event);
    });
    let now = CLOCK;
    const session = fixtureSession({
      model: MODEL,
      globalSystem: [{ label: 'persona', text: 'Operating guidelines. '.repeat(3000) }],
    });
    const cache = createGeminiCacheSession({
      caches: ai.caches,
      sessionId: session.id,
      inputPerMTok: 1.25,
      bus,
      clock: () => now,
    });
    const forecast = { expectedRemainingRequests: 30, expectedGapMs: 20_000 };

    session.appendUserText('First question.');
    const first = await cache.prepare(assemble(session), forecast);
    expect(first.choice.mode).toBe('explicit');
    const response = await ai.models.generateContent(first.body);
    expect(geminiAdapter.parseUsage(response).cacheReadTokens).toBe(8000);

    now += 20_000;
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Answer.' }] });
    session.appendUserText('Second question.');
    const second = await cache.prepare(assemble(session), { ...forecast, expectedRemainingRequests: 29 });
    await ai.models.generateContent(second.body);

    const calls = received.map((entry) => `${entry.method} ${entry.url}`);
    expect(calls).toEqual([
      'POST /cachedContents',
      `POST /models/${MODEL}:generateContent`,
      'PATCH /cachedContents/c1',
      `POST /models/${MODEL}:generateContent`,
    ]);
    expect(received[2]!.body).toEqual({ ttl: '60s' });
    const created = received[0]!.body as Record<string, unknown>;
    expect(Object.keys(created).sort()).toEqual(['displayName', 'model', 'systemInstruction', 'tools', 'ttl']);
    expect(created.ttl).toBe('60s');
    // A request that reads a cache carries neither system instruction nor tools.
    const generate = received[3]!.body as Record<string, unknown>;
    expect(generate.cachedContent).toBe('cachedContents/c1');
    expect(JSON.stringify(generate)).not.toMatch(/systemInstruction|functionDeclarations/);

    // Discovering a tool changes the static prefix: the old cache is deleted and a new one created.
    now += 20_000;
    session.discoverTools([{ name: 'run_tests', description: 'Run the test suite', inputSchema: { type: 'object' } }]);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Answer 2.' }] });
    session.appendUserText('Third question.');
    const third = await cache.prepare(assemble(session), { ...forecast, expectedRemainingRequests: 28 });
    expect(third.options.explicitCache?.name).toBe('cachedContents/c2');
    await cache.close();

    expect(received.map((entry) => `${entry.method} ${entry.url}`).slice(4)).toEqual([
      'DELETE /cachedContents/c1',
      'POST /cachedContents',
      'DELETE /cachedContents/c2',
    ]);
    expect(
      events.map((event) =>
        `${event.type} ${'reason' in event.payload && event.type === 'explicit_cache.deleted' ? event.payload.reason : ''}`.trim(),
      ),
    ).toEqual([
      'explicit_cache.created',
      'explicit_cache.extended',
      'explicit_cache.deleted stale',
      'explicit_cache.created',
      'explicit_cache.deleted session-ended',
    ]);
  });

  it('stays on implicit caching for a short session and creates nothing', async () => {
    const ai = client();
    const session = fixtureSession({
      model: 'gemini-2.5-flash',
      globalSystem: [{ label: 'persona', text: 'Guidelines. '.repeat(2000) }],
    });
    session.appendUserText('One question.');
    const cache = createGeminiCacheSession({ caches: ai.caches, sessionId: session.id, inputPerMTok: 0.3, clock: () => CLOCK });
    const prepared = await cache.prepare(assemble(session), { expectedRemainingRequests: 2, expectedGapMs: 600_000 });
    expect(prepared.choice.mode).toBe('implicit');
    expect(prepared.body.config?.systemInstruction).toBeDefined();
    await cache.close();
    expect(received).toEqual([]);
  });
});
