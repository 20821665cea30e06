import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { HookErrorContext } from '../shared/contained-hooks.js';
import { recordingFetch } from '../test-support/recording-fetch.js';
import { toolLoopReply } from '../test-support/tool-loop-script.js';
import { type CachetMiddlewareOptions, cachetMiddleware } from './cachet-middleware.js';

function withUsage(usage: Record<string, unknown>, stream: boolean) {
  const reply = toolLoopReply([{ type: 'text', text: 'ok' }], stream, 'msg_1');
  const patch = (value: unknown) =>
    JSON.parse(JSON.stringify(value), (key, entry) => (key === 'usage' ? { ...entry, ...usage } : entry));
  return reply.kind === 'json'
    ? { kind: 'json' as const, body: patch(reply.body) }
    : { kind: 'sse' as const, events: patch(reply.events) };
}

async function call(options: CachetMiddlewareOptions, usage: Record<string, unknown> = {}, stream = false) {
  const recorder = recordingFetch(() => withUsage(usage, stream));
  const anthropic = createAnthropic({ baseURL: 'http://cachet.invalid/v1', apiKey: 'no-key-needed', fetch: recorder.fetch });
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: cachetMiddleware(options) });
  const request = { model, system: 'You are terse.', prompt: 'hello' };
  if (stream) {
    const result = streamText(request);
    await result.consumeStream();
    await result.response;
  } else {
    await generateText(request);
  }
  return recorder.bodies;
}

function collecting() {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const errors: Array<{ error: Error; context: HookErrorContext }> = [];
  return { bus, events, errors, onError: (error: Error, context: HookErrorContext) => errors.push({ error, context }) };
}

describe('cachetMiddleware contained: nothing it reads or calls can break the host call', () => {
  for (const stream of [false, true]) {
    it(`publishes no negative usage and no NaN cost; reports it instead (${stream ? 'stream' : 'generate'})`, async () => {
      const seen = collecting();
      await call({ bus: seen.bus, onError: seen.onError }, { input_tokens: -1, cache_read_input_tokens: -5 }, stream);
      expect(seen.events.filter((event) => event.type === 'usage.recorded')).toHaveLength(0);
      expect(seen.errors.length).toBeGreaterThan(0);
      expect(seen.errors[0]!.error.message).toMatch(/usage not recorded/);
      expect(seen.errors[0]!.context.where).toBe(stream ? 'ai-sdk.wrapStream' : 'ai-sdk.wrapGenerate');
      expect(seen.events.some((event) => event.type === 'warning.raised')).toBe(true);
    });
  }

  it('publishes valid usage with finite costs', async () => {
    const seen = collecting();
    await call({ bus: seen.bus, onError: seen.onError }, { input_tokens: 12 });
    const recorded = seen.events.filter((event) => event.type === 'usage.recorded') as Array<CachetEvent<'usage.recorded'>>;
    expect(recorded).toHaveLength(1);
    expect(Number.isFinite(recorded[0]!.payload.costUsd)).toBe(true);
    expect(seen.errors).toHaveLength(0);
  });

  for (const [label, tail] of [
    [
      'throws',
      () => {
        throw new Error('clock unavailable');
      },
    ],
    ['returns a number', () => 42],
    ['returns a list with a bad item', () => ['ok', { text: 'x', scope: 'forever' }]],
    ['returns a huge text', () => 'x'.repeat(4_000_001)],
  ] as const) {
    it(`a tail function that ${label}: reported, the call goes out without a tail`, async () => {
      const seen = collecting();
      const bodies = await call({ bus: seen.bus, onError: seen.onError, tail: tail as () => string });
      expect(bodies).toHaveLength(1);
      const messages = bodies[0]!.messages as Array<{ content: Array<{ text?: string }> }>;
      expect(messages).toHaveLength(1);
      expect(messages[0]!.content.map((block) => block.text)).toEqual(['hello']);
      expect(seen.errors).toHaveLength(1);
      expect(seen.errors[0]!.context.where).toBe('ai-sdk.tail');
    });
  }

  it('callbacks that throw (onRequest, onUsage) and an onError that throws never reach the caller', async () => {
    const bodies = await call({
      onRequest: () => {
        throw new Error('onRequest broke');
      },
      onUsage: () => {
        throw new Error('onUsage broke');
      },
      onError: () => {
        throw new Error('onError broke too');
      },
    });
    expect(bodies).toHaveLength(1);
  });

  it('a conversationId function that throws: the call goes out as the caller built it, reported', async () => {
    const seen = collecting();
    const bodies = await call({
      onError: seen.onError,
      conversationId: () => {
        throw new Error('no id');
      },
    });
    expect(bodies).toHaveLength(1);
    expect(JSON.stringify(bodies[0])).not.toContain('cache_control');
    expect(seen.errors.map((entry) => entry.context.where)).toEqual(['ai-sdk.transformParams']);
  });
});
