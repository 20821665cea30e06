export { exportGenAiSpans, type GenAiSpanExporter, type GenAiSpanOptions } from './export-gen-ai-spans.js';
export { CACHET, GEN_AI, OPEN_INFERENCE } from './gen-ai-attributes.js';
export { type CachetMetricsObserver, type CachetMetricsOptions, observeCachetMetrics } from './observe-cachet-metrics.js';
