import { type Span, SpanKind, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import type { CachetEvent } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import { cacheWriteTokens, totalInputTokens, usageSchema } from '../../model/usage.js';
import { boundedAttributes, boundedText } from './bounded-attributes.js';
import { CACHET, GEN_AI, OPEN_INFERENCE } from './gen-ai-attributes.js';

export interface GenAiSpanOptions {
  /** Where spans go [the global tracer provider]. Its `forceFlush`, when it has one, backs `flush()`. */
  tracerProvider?: TracerProvider;
  /** Also write OpenInference attributes (Arize Phoenix reads those, not `gen_ai.*` cache fields). */
  openInference?: boolean;
  /**
   * Called with every contained problem: an error while turning an event into a span, a figure
   * that was not a finite count (left out of the span), an evicted span, a flush that failed or
   * timed out (`event` is null then). Nothing is thrown to the bus or to `stop()`'s caller.
   */
  onError?: (error: unknown, event: CachetEvent | null) => void;
  /** How long `flush()` and `stop()` wait for the tracer provider's flush [5000 ms]. */
  flushTimeoutMs?: number;
  /** Spans kept open at once (requests whose usage has not come); the oldest is ended past it [1000]. */
  maxOpenSpans?: number;
}

export interface GenAiSpanExporter {
  /**
   * Ends nothing; asks the tracer provider to export what has ended (when it can). Resolves
   * within `flushTimeoutMs` whatever the provider does; a failure or timeout goes to `onError`.
   */
  flush(): Promise<void>;
  /** Unsubscribe, end spans still open (marked `cachet.incomplete`), then flush; always resolves. */
  stop(): Promise<void>;
  /** Requests whose span is open (assembled, usage not yet recorded). */
  readonly open: number;
  /** Open spans ended early because more than `maxOpenSpans` were open. */
  readonly evicted: number;
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
  const flushTimeoutMs = positiveInteger(options.flushTimeoutMs, 5_000, 'options.flushTimeoutMs');
  const maxOpenSpans = positiveInteger(options.maxOpenSpans, 1_000, 'options.maxOpenSpans');
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer: Tracer = provider.getTracer(TRACER_NAME);
  const open = new Map<string, Span>();
  let evicted = 0;
  const report = (error: unknown, event: CachetEvent | null) => {
    try {
      options.onError?.(error, event);
    } catch {
      // An onError that throws has nowhere left to report to.
    }
  };
  /** Sets attributes with every value bounded; figures that are not finite are left out and reported. */
  const setBounded = (span: Span, attributes: Record<string, unknown>, event: CachetEvent) => {
    const bounded = boundedAttributes(attributes);
    span.setAttributes(bounded.attributes);
    if (bounded.rejected.length > 0) {
      report(new Error(`span attributes left out (not finite): ${bounded.rejected.join(', ')}`), event);
    }
  };
  const endOpen = (sessionId: string, at?: number) => {
    const span = open.get(sessionId);
    if (!span) return;
    open.delete(sessionId);
    span.setAttribute(CACHET.incomplete, true);
    span.end(at);
  };

  const startSpan = (event: CachetEvent, rawModel: unknown, providerName: string, attributes: Record<string, unknown>): Span => {
    const model = boundedText(rawModel);
    const span = tracer.startSpan(`chat ${model}`, {
      kind: SpanKind.CLIENT,
      startTime: Number.isFinite(event.at) ? event.at : undefined,
      attributes: {
        [GEN_AI.operationName]: 'chat',
        [GEN_AI.providerName]: providerName,
        [GEN_AI.requestModel]: model,
        [GEN_AI.conversationId]: boundedText(event.sessionId),
        ...(options.openInference
          ? {
              [OPEN_INFERENCE.spanKind]: 'LLM',
              [OPEN_INFERENCE.modelName]: model,
              [OPEN_INFERENCE.provider]: providerName,
              [OPEN_INFERENCE.sessionId]: boundedText(event.sessionId),
            }
          : {}),
      },
    });
    setBounded(span, attributes, event);
    return span;
  };

  /** Opens a request's span; past `maxOpenSpans` the oldest open one is ended first, marked incomplete. */
  const openSpan = (event: CachetEvent, span: () => Span) => {
    endOpen(event.sessionId, event.at); // a request whose usage never came
    if (open.size >= maxOpenSpans) {
      const oldest = open.keys().next().value as string;
      endOpen(oldest);
      evicted++;
      report(new Error(`more than ${maxOpenSpans} open spans: the oldest (session ${boundedText(oldest)}) was ended`), event);
    }
    open.set(event.sessionId, span());
  };

  const handle = (event: CachetEvent) => {
    switch (event.type) {
      case 'request.assembled': {
        const payload = (event as CachetEvent<'request.assembled'>).payload;
        const attributes: Record<string, unknown> = {
          [CACHET.turn]: payload.turn,
          [CACHET.step]: payload.step,
          [CACHET.breakpoints]: payload.breakpoints.map((breakpoint) => `${breakpoint.path} ${breakpoint.ttl}`),
          [CACHET.breakpointReasons]: payload.breakpoints.map((breakpoint) => breakpoint.reason),
          [CACHET.prefixHash]: payload.prefixHash,
          [CACHET.sharedBlocks]: payload.sharedBlocks,
          [CACHET.blockCount]: payload.blockCount,
          ...Object.fromEntries(Object.entries(payload.zoneTokens).map(([zone, tokens]) => [CACHET.zoneTokens(zone), tokens])),
          ...(payload.warnings.length > 0
            ? { [CACHET.warnings]: payload.warnings.map((warning) => `${warning.code}: ${warning.message}`) }
            : {}),
        };
        openSpan(event, () => startSpan(event, payload.model, providerName(payload.provider), attributes));
        return;
      }
      case 'cache.break': {
        const payload = (event as CachetEvent<'cache.break'>).payload;
        const span = open.get(event.sessionId);
        if (!span) return;
        const attributes = {
          [CACHET.breakCause]: payload.cause,
          [CACHET.missedTokens]: payload.missedTokens,
          ...(payload.zone ? { [CACHET.breakZone]: payload.zone } : {}),
          ...(payload.path ? { [CACHET.breakPath]: payload.path } : {}),
          ...(payload.byteOffset !== null ? { [CACHET.breakByteOffset]: payload.byteOffset } : {}),
        };
        setBounded(span, attributes, event);
        span.addEvent('cache.break', boundedAttributes(attributes).attributes, event.at);
        return;
      }
      case 'usage.recorded': {
        const payload = (event as CachetEvent<'usage.recorded'>).payload;
        const span =
          open.get(event.sessionId) ??
          startSpan(event, payload.model, 'unknown', { [CACHET.turn]: payload.turn, [CACHET.step]: payload.step });
        open.delete(event.sessionId);
        const { usage } = payload;
        const checked = usageSchema.safeParse(usage);
        if (!checked.success) {
          // Figures that are not counts would poison every sum downstream: the span ends without them.
          report(
            new Error(`usage left out of the span: ${checked.error.issues[0]?.path.join('.') ?? 'usage'} is not a count`),
            event,
          );
          span.setAttribute(CACHET.incomplete, true);
          span.end(Number.isFinite(event.at) ? Math.max(event.at, 0) : undefined);
          return;
        }
        const input = totalInputTokens(usage);
        const written = cacheWriteTokens(usage);
        setBounded(
          span,
          {
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
          },
          event,
        );
        span.end(Number.isFinite(event.at) ? Math.max(event.at, 0) : undefined);
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
      report(error, event);
    }
  });

  const flush = async () => {
    const flushable = provider as TracerProvider & { forceFlush?: () => Promise<void> };
    if (typeof flushable.forceFlush !== 'function') return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), flushTimeoutMs);
      timer.unref?.();
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(() => flushable.forceFlush!()), timeout]);
      if (outcome === 'timeout')
        report(new Error(`the tracer provider's flush did not settle within ${flushTimeoutMs} ms`), null);
    } catch (error) {
      report(error, null);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    flush,
    async stop() {
      unsubscribe();
      for (const sessionId of [...open.keys()]) {
        try {
          endOpen(sessionId);
        } catch (error) {
          report(error, null);
        }
      }
      open.clear();
      await flush();
    },
    get open() {
      return open.size;
    },
    get evicted() {
      return evicted;
    },
  };
}

function positiveInteger(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ValidationError(path, 'a positive integer', `got ${String(value)}`);
  return value;
}

/** `gen_ai.provider.name` values of the convention for Cachet's provider ids. */
function providerName(provider: string): string {
  return provider === 'openai-chat' || provider === 'openai-responses' ? 'openai' : provider;
}
