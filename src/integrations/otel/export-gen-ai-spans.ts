import { type Attributes, type Span, SpanKind, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import type { CachetEvent } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import { cacheWriteTokens, totalInputTokens } from '../../model/usage.js';
import { CACHET, GEN_AI, OPEN_INFERENCE } from './gen-ai-attributes.js';

export interface GenAiSpanOptions {
  /** Where spans go [the global tracer provider]. Its `forceFlush`, when it has one, backs `flush()`. */
  tracerProvider?: TracerProvider;
  /** Also write OpenInference attributes (Arize Phoenix reads those, not `gen_ai.*` cache fields). */
  openInference?: boolean;
  /** Called with any error raised while turning an event into a span; the bus is never disturbed. */
  onError?: (error: unknown, event: CachetEvent) => void;
}

export interface GenAiSpanExporter {
  /** Ends nothing; asks the tracer provider to export what has ended (when it can). */
  flush(): Promise<void>;
  /** Unsubscribe, end spans still open (marked `cachet.incomplete`), then flush. */
  stop(): Promise<void>;
  /** Requests whose span is open (assembled, usage not yet recorded). */
  readonly open: number;
}

const TRACER_NAME = 'cachet';

/**
 * One OpenTelemetry span per model request, following the GenAI semantic conventions, built
 * from Cachet's events: `request.assembled` opens `chat <model>` (kind CLIENT), `cache.break`
 * adds the break's cause and missed tokens, `usage.recorded` sets the usage (input tokens
 * including cached ones) and ends it. A `usage.recorded` with no open span makes a span of its
 * own. State lives only while a request is open, per session, so nothing grows across sessions.
 * Errors are contained and reported to `onError`. Depends only on `@opentelemetry/api`.
 *
 * @example
 * const exporter = exportGenAiSpans(bus, { tracerProvider: provider });
 * // ... run the agent (Session, cachetMiddleware({ bus }), ...) ...
 * await exporter.stop();
 */
export function exportGenAiSpans(bus: EventBus, options: GenAiSpanOptions = {}): GenAiSpanExporter {
  if (options.tracerProvider !== undefined && typeof options.tracerProvider?.getTracer !== 'function') {
    throw new ValidationError('options.tracerProvider', 'an OpenTelemetry TracerProvider');
  }
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer: Tracer = provider.getTracer(TRACER_NAME);
  const open = new Map<string, Span>();

  const startSpan = (event: CachetEvent, model: string, providerName: string, attributes: Attributes): Span => {
    const span = tracer.startSpan(`chat ${model}`, {
      kind: SpanKind.CLIENT,
      startTime: event.at,
      attributes: {
        [GEN_AI.operationName]: 'chat',
        [GEN_AI.providerName]: providerName,
        [GEN_AI.requestModel]: model,
        [GEN_AI.conversationId]: event.sessionId,
        ...(options.openInference
          ? {
              [OPEN_INFERENCE.spanKind]: 'LLM',
              [OPEN_INFERENCE.modelName]: model,
              [OPEN_INFERENCE.provider]: providerName,
              [OPEN_INFERENCE.sessionId]: event.sessionId,
            }
          : {}),
        ...attributes,
      },
    });
    return span;
  };

  const handle = (event: CachetEvent) => {
    switch (event.type) {
      case 'request.assembled': {
        const payload = (event as CachetEvent<'request.assembled'>).payload;
        open.get(event.sessionId)?.end(event.at); // a request whose usage never came
        const attributes: Attributes = {
          [CACHET.turn]: payload.turn,
          [CACHET.step]: payload.step,
          [CACHET.breakpoints]: payload.breakpoints.map((breakpoint) => `${breakpoint.path} ${breakpoint.ttl}`),
          [CACHET.breakpointReasons]: payload.breakpoints.map((breakpoint) => breakpoint.reason),
          [CACHET.prefixHash]: payload.prefixHash,
          [CACHET.sharedBlocks]: payload.sharedBlocks,
          [CACHET.blockCount]: payload.blockCount,
          ...Object.fromEntries(Object.entries(payload.zoneTokens).map(([zone, tokens]) => [CACHET.zoneTokens(zone), tokens])),
          ...(payload.warnings.length > 0 ? { [CACHET.warnings]: payload.warnings } : {}),
        };
        open.set(event.sessionId, startSpan(event, payload.model, providerName(payload.provider), attributes));
        return;
      }
      case 'cache.break': {
        const payload = (event as CachetEvent<'cache.break'>).payload;
        const span = open.get(event.sessionId);
        if (!span) return;
        span.setAttributes({
          [CACHET.breakCause]: payload.cause,
          [CACHET.missedTokens]: payload.missedTokens,
          ...(payload.zone ? { [CACHET.breakZone]: payload.zone } : {}),
          ...(payload.path ? { [CACHET.breakPath]: payload.path } : {}),
          ...(payload.byteOffset !== null ? { [CACHET.breakByteOffset]: payload.byteOffset } : {}),
        });
        span.addEvent(
          'cache.break',
          { [CACHET.breakCause]: payload.cause, [CACHET.missedTokens]: payload.missedTokens },
          event.at,
        );
        return;
      }
      case 'usage.recorded': {
        const payload = (event as CachetEvent<'usage.recorded'>).payload;
        const span =
          open.get(event.sessionId) ??
          startSpan(event, payload.model, 'unknown', { [CACHET.turn]: payload.turn, [CACHET.step]: payload.step });
        open.delete(event.sessionId);
        const { usage } = payload;
        const input = totalInputTokens(usage);
        const written = cacheWriteTokens(usage);
        span.setAttributes({
          [GEN_AI.inputTokens]: input,
          [GEN_AI.outputTokens]: usage.outputTokens,
          [GEN_AI.cacheReadInputTokens]: usage.cacheReadTokens,
          [GEN_AI.cacheCreationInputTokens]: written,
          [GEN_AI.reasoningOutputTokens]: usage.reasoningTokens,
          [CACHET.uncachedInput]: usage.uncachedInputTokens,
          [CACHET.cacheWrite5m]: usage.cacheWrite5mTokens,
          [CACHET.cacheWrite1h]: usage.cacheWrite1hTokens,
          [CACHET.costUsd]: payload.costUsd,
          [CACHET.uncachedCostUsd]: payload.uncachedCostUsd,
          ...(options.openInference
            ? {
                [OPEN_INFERENCE.promptTokens]: input,
                [OPEN_INFERENCE.completionTokens]: usage.outputTokens,
                [OPEN_INFERENCE.totalTokens]: input + usage.outputTokens,
                [OPEN_INFERENCE.cacheRead]: usage.cacheReadTokens,
                [OPEN_INFERENCE.cacheWrite]: written,
              }
            : {}),
        });
        span.end(Math.max(event.at, 0));
        return;
      }
      default:
        return;
    }
  };

  const unsubscribe = bus.onAny((event) => {
    try {
      handle(event);
    } catch (error) {
      options.onError?.(error, event);
    }
  });

  const flush = async () => {
    const flushable = provider as TracerProvider & { forceFlush?: () => Promise<void> };
    if (typeof flushable.forceFlush === 'function') await flushable.forceFlush();
  };

  return {
    flush,
    async stop() {
      unsubscribe();
      for (const span of open.values()) {
        span.setAttribute(CACHET.incomplete, true);
        span.end();
      }
      open.clear();
      await flush();
    },
    get open() {
      return open.size;
    },
  };
}

/** `gen_ai.provider.name` values of the convention for Cachet's provider ids. */
function providerName(provider: string): string {
  return provider === 'openai-chat' || provider === 'openai-responses' ? 'openai' : provider;
}
