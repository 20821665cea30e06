export { exportGenAiSpans, type GenAiSpanExporter, type GenAiSpanOptions } from './export-gen-ai-spans.js';
export { CACHET, GEN_AI, OPEN_INFERENCE } from './gen-ai-attributes.js';
