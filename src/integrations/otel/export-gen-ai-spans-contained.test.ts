import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import { MAX_ATTRIBUTE_CHARS } from './bounded-attributes.js';
import { exportGenAiSpans, type GenAiSpanOptions } from './export-gen-ai-spans.js';
import { GEN_AI } from './gen-ai-attributes.js';

const usage = (figures: Partial<Record<string, number>> = {}) => ({
  uncachedInputTokens: 10,
  cacheReadTokens: 100,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 5,
  reasoningTokens: 0,
  raw: null,
  ...figures,
});

function assembled(bus: EventBus, sessionId: string, model = 'claude-sonnet-4-5', at = 1) {
  bus.emit('request.assembled', sessionId, at, {
    turn: 1,
    step: 0,
    provider: 'anthropic',
    model,
    zoneTokens: { global: 0, session: 10, history: 0, tail: 0 },
    prefixHash: 'abc',
    blockCount: 1,
    sharedBlocks: 0,
    blockHashes: [],
    breakpoints: [],
    padding: null,
    warnings: [],
  });
}

function setUp(options: GenAiSpanOptions = {}) {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  const bus = new EventBus();
  const errors: Array<{ error: unknown; event: CachetEvent | null }> = [];
  const exporter = exportGenAiSpans(bus, {
    tracerProvider: provider,
    onError: (error, event) => errors.push({ error, event }),
    ...options,
  });
  return { memory, provider, bus, errors, exporter };
}

describe('exportGenAiSpans contained', () => {
  it('stop() resolves within the timeout when the flush never settles, and reports it', async () => {
    const errors: unknown[] = [];
    const provider = {
      getTracer: () => new TracerProvider().getTracer('t'),
      forceFlush: () => new Promise<void>(() => {}),
    };
    const exporter = exportGenAiSpans(new EventBus(), {
      tracerProvider: provider as never,
      flushTimeoutMs: 50,
      onError: (error) => errors.push(error),
    });
    const started = performance.now();
    await expect(exporter.stop()).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(String(errors[0])).toMatch(/did not settle within 50 ms/);
  });

  it('stop() resolves when the flush rejects, and the error goes to onError', async () => {
    const errors: unknown[] = [];
    const provider = {
      getTracer: () => new TracerProvider().getTracer('t'),
      forceFlush: () => Promise.reject(new Error('collector down')),
    };
    const exporter = exportGenAiSpans(new EventBus(), {
      tracerProvider: provider as never,
      onError: (error) => errors.push(error),
    });
    await expect(exporter.stop()).resolves.toBeUndefined();
    expect(String(errors[0])).toMatch(/collector down/);
  });

  it('keeps at most maxOpenSpans spans open for requests whose usage never comes', async () => {
    const { bus, exporter, errors, memory } = setUp({ maxOpenSpans: 100 });
    for (let index = 0; index < 1_000; index++) assembled(bus, `session-${index}`);
    expect(exporter.open).toBe(100);
    expect(exporter.evicted).toBe(900);
    expect(errors).toHaveLength(900);
    const ended = memory.getFinishedSpans();
    expect(ended).toHaveLength(900);
    expect(ended.every((span) => span.attributes['cachet.incomplete'] === true)).toBe(true);
    await exporter.stop();
    expect(memory.getFinishedSpans()).toHaveLength(1_000);
  });

  it('copies no 1 MB model name and no NaN into spans', async () => {
    const { bus, exporter, errors, memory } = setUp();
    const huge = 'm'.repeat(1_000_000);
    assembled(bus, 's1', huge);
    bus.emit('usage.recorded', 's1', 2, {
      turn: 1,
      step: 0,
      model: huge,
      usage: usage(),
      costUsd: Number.NaN,
      uncachedCostUsd: 1,
    });
    await exporter.stop();
    const [span] = memory.getFinishedSpans();
    expect(span!.name.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS + 5);
    expect(String(span!.attributes[GEN_AI.requestModel]).length).toBeLessThanOrEqual(MAX_ATTRIBUTE_CHARS);
    expect(span!.attributes['cachet.cost_usd']).toBeUndefined();
    expect(span!.attributes['cachet.uncached_cost_usd']).toBe(1);
    const numbers = Object.values(span!.attributes).filter((value) => typeof value === 'number') as number[];
    expect(numbers.every(Number.isFinite)).toBe(true);
    expect(String(errors[0]!.error)).toMatch(/cachet.cost_usd/);
  });

  it('usage that is not counts (NaN, -1) is left out of the span, reported, the span ended', async () => {
    const { bus, exporter, errors, memory } = setUp();
    assembled(bus, 's1');
    bus.emit('usage.recorded', 's1', 2, {
      turn: 1,
      step: 0,
      model: 'claude-sonnet-4-5',
      usage: usage({ cacheReadTokens: Number.NaN, uncachedInputTokens: -1 }),
      costUsd: 0,
      uncachedCostUsd: 0,
    });
    expect(exporter.open).toBe(0);
    await exporter.stop();
    const [span] = memory.getFinishedSpans();
    expect(span!.attributes[GEN_AI.inputTokens]).toBeUndefined();
    expect(span!.attributes['cachet.incomplete']).toBe(true);
    expect(String(errors[0]!.error)).toMatch(/usage left out/);
  });

  it('an onError that throws does not break the bus or stop()', async () => {
    const bus = new EventBus();
    const provider = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('exporter down');
        },
      }),
      forceFlush: () => Promise.reject(new Error('down')),
    };
    const exporter = exportGenAiSpans(bus, {
      tracerProvider: provider as never,
      onError: () => {
        throw new Error('onError broke');
      },
    });
    expect(() => assembled(bus, 's')).not.toThrow();
    await expect(exporter.stop()).resolves.toBeUndefined();
  });

  it('checks its limits at creation', () => {
    expect(() => exportGenAiSpans(new EventBus(), { maxOpenSpans: 0 })).toThrow(/maxOpenSpans/);
    expect(() => exportGenAiSpans(new EventBus(), { flushTimeoutMs: -1 })).toThrow(/flushTimeoutMs/);
  });
});
