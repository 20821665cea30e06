import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { startEmulator } from '../emulate/start-emulator.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const anthropic = (baseURL: string, apiKey = TEST_KEY) => new Anthropic({ apiKey, baseURL, maxRetries: 0 });
const readShare = (usage: Anthropic.Usage) => {
  const read = usage.cache_read_input_tokens ?? 0;
  return read / (read + (usage.cache_creation_input_tokens ?? 0) + usage.input_tokens);
};

describe('cachet proxy: pass-through', () => {
  it('forwards byte-identical bodies: the same session straight to an emulator and through the proxy to another', async () => {
    harness = await startHarness();
    const direct = await startEmulator({ apiKey: TEST_KEY });
    try {
      for (let turn = 1; turn <= 3; turn++) {
        const body = anthropicTurn(turn);
        const straight = await anthropic(direct.url).messages.create(body);
        const proxied = await anthropic(harness.proxy.url).messages.create(body);
        expect(proxied.content).toEqual(straight.content);
        expect(proxied.usage).toEqual(straight.usage);
      }
      const streamed = await anthropic(harness.proxy.url).messages.stream(anthropicTurn(4)).finalMessage();
      await anthropic(direct.url).messages.stream(anthropicTurn(4)).finalMessage();
      expect(streamed.usage.cache_read_input_tokens).toBeGreaterThan(0);
      expect(harness.emulator.received.map((entry) => entry.body)).toEqual(direct.received.map((entry) => entry.body));
    } finally {
      await direct.close();
    }
  });

  it('records usage and breaks per conversation, two conversations interleaved, streamed and not', async () => {
    harness = await startHarness();
    const client = anthropic(harness.proxy.url);
    const withTime = (body: Anthropic.MessageCreateParamsNonStreaming, time: string) => {
      const system = body.system as Array<{ text: string }>;
      system[0]!.text = `Current time: ${time}. ${system[0]!.text}`;
      return body;
    };
    await client.messages.create(anthropicTurn(1, { conversation: 'one' }));
    await client.messages.stream(withTime(anthropicTurn(1, { conversation: 'two' }), '2026-11-23T10:00:00Z')).finalMessage();
    await client.messages.stream(anthropicTurn(2, { conversation: 'one' })).finalMessage();
    await client.messages.create(withTime(anthropicTurn(2, { conversation: 'two' }), '2026-11-23T10:05:00Z'));
    await harness.flush();

    const sessions = await harness.store.sessions();
    expect(sessions).toHaveLength(2);
    expect(sessions.every((session) => session.requests === 2)).toBe(true);
    const one = sessions.find((session) => session.sessionId === harness!.captured[0]!.conversation)!;
    const two = sessions.find((session) => session.sessionId !== one.sessionId)!;
    expect(one.cacheBreaks).toBe(0);
    expect(two.cacheBreaks).toBe(1);
    const breaks = (await harness.store.events({
      sessionId: two.sessionId,
      types: ['cache.break'],
    })) as CachetEvent<'cache.break'>[];
    expect(breaks[0]!.payload).toMatchObject({ cause: 'clock', zone: 'system', path: 'system[0]' });
    expect(harness.captured.map((entry) => entry.conversation)).toEqual([
      one.sessionId,
      two.sessionId,
      one.sessionId,
      two.sessionId,
    ]);
    const requests = await harness.store.requests(one.sessionId);
    expect(requests[1]!.tokens.cacheRead).toBeGreaterThan(0);
  });

  it('groups by the conversation header, metadata.user_id and prompt_cache_key before the prefix hash', async () => {
    harness = await startHarness({ proxy: { instance: 't1' } });
    await anthropic(harness.proxy.url).messages.create(anthropicTurn(1), { headers: { 'x-cachet-conversation': 'ticket-42' } });
    await anthropic(harness.proxy.url).messages.create({ ...anthropicTurn(1), metadata: { user_id: 'user-7' } });
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create(chatTurn(1, 'keyed'));
    await harness.flush();
    // Session ids: the key, the provider and the proxy instance (two proxies on one store never share one).
    expect(harness.captured.map((entry) => entry.conversation)).toEqual([
      'ticket-42@anthropic-t1',
      'user-7@anthropic-t1',
      'conversation-keyed@openai-chat-t1',
    ]);
    // The conversation header is Cachet's own and is not forwarded.
    expect(harness.emulator.received).toHaveLength(3);
  });
});

describe('cachet proxy --plan', () => {
  it('places Cachet breakpoints for a client that places none: ≥ 90% of input read from the second request on', async () => {
    harness = await startHarness({ proxy: { plan: true } });
    const shares: number[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      const reply = await anthropic(harness.proxy.url).messages.create(anthropicTurn(turn, { marked: false }));
      shares.push(readShare(reply.usage));
    }
    expect(shares[0]).toBe(0);
    for (const share of shares.slice(1)) expect(share).toBeGreaterThanOrEqual(0.9);
    // Content is never rewritten: only cache_control and diagnostics differ from the client's body.
    await harness.flush();
    const strip = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, field) => (key === 'cache_control' || key === 'diagnostics' ? undefined : field)));
    for (const entry of harness.captured) expect(strip(entry.sent)).toEqual(strip(entry.body));
  });

  it('asks for diagnostics and records the server cause beside Cachet cause on cache.break', async () => {
    harness = await startHarness({ proxy: { plan: true } });
    const client = anthropic(harness.proxy.url);
    await client.messages.create(anthropicTurn(1, { marked: false }));
    const changed = anthropicTurn(2, { marked: false });
    changed.tools![0] = { ...changed.tools![0]!, description: 'Read any file.' } as never;
    const second = await client.messages.create(changed);
    expect(second.diagnostics?.cache_miss_reason?.type).toBe('tools_changed');
    await harness.flush();
    const sent = JSON.parse(harness.emulator.received[1]!.body);
    expect(sent.diagnostics).toEqual({ previous_message_id: harness.captured[0]!.responseId });
    const [found] = (await harness.store.events({ types: ['cache.break'] })) as CachetEvent<'cache.break'>[];
    expect(found!.payload).toMatchObject({ cause: 'tools-changed', serverCause: { type: 'tools_changed' } });
    // The session's requests (the dashboard's table) carry both causes too.
    const [, secondRequest] = await harness.store.requests(found!.sessionId);
    expect(secondRequest!.breaks).toEqual([
      {
        cause: 'tools-changed',
        zone: 'tools',
        path: 'tools[0]',
        missedTokens: found!.payload.missedTokens,
        serverCause: { type: 'tools_changed', missedTokens: found!.payload.serverCause!.missedTokens },
      },
    ]);
  });
});

describe('cachet proxy: failures reach the client in the provider shape, and nothing is half-recorded', () => {
  it('upstream down: 502 as an Anthropic api_error and an OpenAI server_error', async () => {
    harness = await startHarness();
    const gone = await startEmulator();
    const goneUrl = gone.url;
    await gone.close();
    await harness.proxy.close();
    const { startProxy } = await import('./start-proxy.js');
    const proxy = await startProxy({ upstream: goneUrl });
    try {
      const error = await anthropic(proxy.url)
        .messages.create(anthropicTurn(1))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
      expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'api_error' },
      });
      const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
      const chatError = await openai.chat.completions.create(chatTurn(1)).catch((caught: unknown) => caught);
      expect(chatError).toBeInstanceOf(OpenAI.InternalServerError);
      expect((chatError as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_unreachable');
    } finally {
      await proxy.close();
    }
  });

  it('timeout: 504 when the upstream sends no headers in time; oversized bodies: 413 before anything is sent', async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    harness = await startHarness({ proxy: { fetch: hanging, timeoutMs: 50, maxBodyBytes: 200_000 } });
    const error = await anthropic(harness.proxy.url)
      .messages.create(anthropicTurn(1))
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(504);
    const big = anthropicTurn(1);
    (big.messages[0]!.content as Array<{ text: string }>)[0]!.text = 'x'.repeat(300_000);
    const tooBig = await anthropic(harness.proxy.url)
      .messages.create(big)
      .catch((caught: unknown) => caught);
    expect((tooBig as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
    expect((tooBig as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'request_too_large' } });
    await harness.flush();
    expect(harness.captured).toEqual([]);
    expect(await harness.store.events()).toEqual([]);
  });

  it('client disconnect mid-stream: the upstream request is aborted and nothing is recorded', async () => {
    let upstreamAborted = false;
    const slow: typeof fetch = async (_input, init) => {
      const encoder = new TextEncoder();
      let timer: ReturnType<typeof setInterval> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            encoder.encode(
              'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
            ),
          );
          timer = setInterval(() => controller.enqueue(encoder.encode('event: ping\ndata: {"type":"ping"}\n\n')), 10);
          init?.signal?.addEventListener('abort', () => {
            upstreamAborted = true;
            clearInterval(timer);
            controller.error(init.signal?.reason);
          });
        },
        cancel() {
          clearInterval(timer);
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    harness = await startHarness({ proxy: { fetch: slow } });
    const controller = new AbortController();
    const stream = await anthropic(harness.proxy.url).messages.create(
      { ...anthropicTurn(1), stream: true },
      { signal: controller.signal },
    );
    for await (const event of stream) {
      if (event.type === 'message_start') break;
    }
    controller.abort();
    await vi.waitFor(() => expect(upstreamAborted).toBe(true), { timeout: 5000 });
    await harness.flush();
    expect(harness.captured).toEqual([]);
    expect(await harness.store.events()).toEqual([]);
  });
});

describe('cachet proxy: API keys', () => {
  it('forwards the key and never stores or logs it', async () => {
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...parts: unknown[]) => {
        logged.push(parts.map(String).join(' '));
      }),
    );
    try {
      harness = await startHarness({ proxy: { plan: true } });
      await anthropic(harness.proxy.url).messages.create(anthropicTurn(1));
      const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
      await openai.chat.completions.create(chatTurn(1));
      // A wrong key reaches the upstream untouched and its 401 comes back as is.
      await expect(anthropic(harness.proxy.url, 'sk-wrong').messages.create(anthropicTurn(1))).rejects.toBeInstanceOf(
        Anthropic.AuthenticationError,
      );
      await harness.flush();
      expect(harness.captured).toHaveLength(2);
      const dbPath = harness.dbPath;
      const captured = JSON.stringify(harness.captured);
      await harness.close();
      harness = null;
      const secret = TEST_KEY.slice('sk-ant-'.length);
      for (const file of [dbPath, `${dbPath}-wal`]) {
        let bytes = '';
        try {
          bytes = readFileSync(file).toString('latin1');
        } catch {
          continue;
        }
        expect(bytes.length).toBeGreaterThan(0);
        expect(bytes).not.toContain(secret);
      }
      expect(captured).not.toContain(secret);
      expect(logged.join('\n')).not.toContain(secret);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
