/**
 * Cachet's events as OpenTelemetry GenAI spans, sent over OTLP/HTTP. With no endpoint set it
 * prints the spans (console exporter) of a scripted AI SDK agent run against a local server.
 *
 *   npm run example:otel
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces npm run example:otel
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ConsoleSpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { EventBus } from '../src/events/event-bus.js';
import { runCodingAgentOnAiSdk } from '../src/integrations/ai-sdk/test-support/run-coding-agent.js';
import { exportGenAiSpans } from '../src/integrations/otel/index.js';
import { startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';

const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
const provider = new TracerProvider({
  spanProcessors: [
    new SimpleSpanProcessor({ exporter: endpoint ? new OTLPTraceExporter({ url: endpoint }) : new ConsoleSpanExporter() }),
  ],
});
const bus = new EventBus();
const spans = exportGenAiSpans(bus, { tracerProvider: provider, openInference: true });

const server = await startCodingAgentServer();
await runCodingAgentOnAiSdk(server.origin, 'cachet-tail', { middleware: { bus, conversationId: 'example-conversation' } });
await spans.stop();
await provider.shutdown();
await server.close();
