import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../events/event-bus.js';
import { runCodingAgentOnAiSdk } from '../ai-sdk/test-support/run-coding-agent.js';
import { startCodingAgentServer } from '../test-support/coding-agent-server.js';
import { exportGenAiSpans } from './export-gen-ai-spans.js';
import { GEN_AI } from './gen-ai-attributes.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function runAgent(bus: EventBus) {
  const server = await startCodingAgentServer();
  cleanups.push(() => server.close());
  await runCodingAgentOnAiSdk(server.origin, 'cachet', { middleware: { bus, conversationId: 'conversation-7' } });
  return server;
}

describe('exportGenAiSpans', () => {
  it('uses the attribute names of @opentelemetry/semantic-conventions (incubating)', () => {
    expect(GEN_AI).toEqual({
      operationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
      providerName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
      requestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
      conversationId: semconv.ATTR_GEN_AI_CONVERSATION_ID,
      inputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadInputTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationInputTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      reasoningOutputTokens: semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
    });
  });

  it('writes one chat span per model request of a real AI SDK agent, input tokens including cached ones (in-memory exporter)', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
    const bus = new EventBus();
    const exporter = exportGenAiSpans(bus, { tracerProvider: provider, openInference: true });
    const server = await runAgent(bus);
    await exporter.stop();
    const spans = memory.getFinishedSpans();
    expect(spans).toHaveLength(server.verdicts.length);
    expect(exporter.open).toBe(0);
    spans.forEach((span, index) => {
      const verdict = server.verdicts[index]!;
      expect(span.name).toBe('chat claude-sonnet-4-5');
      expect(span.attributes[GEN_AI.operationName]).toBe('chat');
      expect(span.attributes[GEN_AI.providerName]).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC);
      expect(span.attributes[GEN_AI.conversationId]).toBe('conversation-7');
      expect(span.attributes[GEN_AI.inputTokens]).toBe(verdict.inputTokens);
      expect(span.attributes[GEN_AI.cacheReadInputTokens]).toBe(verdict.cacheReadTokens);
      expect(span.attributes[GEN_AI.cacheCreationInputTokens]).toBe(verdict.cacheWriteTokens);
      expect(span.attributes['llm.token_count.prompt_details.cache_read']).toBe(verdict.cacheReadTokens);
      expect((span.attributes['cachet.breakpoints'] as string[]).length).toBeLessThanOrEqual(4);
    });
    // Each new turn changes the dynamic system prompt: its span names the cause.
    const broken = spans.filter((span) => span.attributes['cachet.break.cause'] !== undefined);
    expect(broken.length).toBeGreaterThanOrEqual(5);
    expect(broken[0]!.attributes['cachet.break.cause']).toBe('clock');
    expect(broken[0]!.attributes['cachet.break.missed_tokens']).toBeGreaterThan(0);
    await provider.shutdown();
  });

  it('sends the spans over OTLP/HTTP to a local receiver', async () => {
    const received: unknown[] = [];
    const receiver = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const { port } = receiver.address() as AddressInfo;
    const provider = new TracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` }) }),
      ],
    });
    const bus = new EventBus();
    const exporter = exportGenAiSpans(bus, { tracerProvider: provider });
    const server = await runAgent(bus);
    await exporter.stop();
    await provider.shutdown();
    type OtlpSpan = {
      name: string;
      attributes: Array<{ key: string; value: { intValue?: string | number; stringValue?: string } }>;
    };
    const spans = (received as Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>).flatMap((payload) =>
      payload.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
    expect(spans).toHaveLength(server.verdicts.length);
    const read = spans.reduce((sum, span) => {
      const attribute = span.attributes.find((entry) => entry.key === GEN_AI.cacheReadInputTokens);
      return sum + Number(attribute?.value.intValue ?? 0);
    }, 0);
    expect(read).toBe(server.verdicts.reduce((sum, verdict) => sum + verdict.cacheReadTokens, 0));
  });

  it('contains a failing tracer: the bus and the agent go on, the error is reported', () => {
    const bus = new EventBus();
    const errors: unknown[] = [];
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('exporter down');
        },
      }),
    } as never;
    exportGenAiSpans(bus, { tracerProvider: broken, onError: (error) => errors.push(error) });
    expect(() =>
      bus.emit('usage.recorded', 's', 0, {
        turn: 1,
        step: 0,
        model: 'm',
        costUsd: 0,
        uncachedCostUsd: 0,
        usage: {
          uncachedInputTokens: 1,
          cacheReadTokens: 0,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          outputTokens: 1,
          reasoningTokens: 0,
          raw: null,
        },
      }),
    ).not.toThrow();
    expect(errors).toHaveLength(1);
  });
});
