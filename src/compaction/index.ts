export { createCompactionPipeline, breakpointsAfterRewrite, isSummaryMessage } from './pipeline.js';
export type {
  BeforeRequestContext,
  CompactionDecision,
  CompactionPipeline,
  CompactionPipelineOptions,
  PipelineSessionState,
} from './pipeline.js';
export { DEFAULT_COMPACTION_OPTIONS, resolveCompactionOptions } from './options.js';
export type { CachePriceMultipliers, CompactionOptions, CompactionOptionsInput, CompactionThresholds } from './options.js';
export { evaluateRewriteCost } from './cost-model.js';
export type { RewriteCost, RewriteCostInput } from './cost-model.js';
export { MemoryOffloadStore, restoreIdFor } from './offload-store.js';
export type { OffloadRecord, OffloadStore } from './offload-store.js';
export { DEFAULT_CONTEXT_DIR, FileOffloadStore } from './file-offload-store.js';
export { DEFAULT_CHECKPOINT_DIR, FileCheckpointStore, MemoryCheckpointStore } from './checkpoint-store.js';
export type { Checkpoint, CheckpointStore } from './checkpoint-store.js';
export { filterMessage, filterToolResult } from './ingestion-filter.js';
export type { FilteredToolResult, HeadTailLimits } from './ingestion-filter.js';
export { guardInput } from './oversized-input-guard.js';
export {
  COMPACTION_TOOL_DEFINITIONS,
  CONTEXT_RESTORE_TOOL,
  SESSION_NOTE_TOOL,
  createContextRestoreTool,
  createSessionNoteTool,
} from './tools.js';
export type { CompactionTool } from './tools.js';
export { SessionNotes } from './session-notes.js';
export {
  classifyToolResults,
  isTurnStart,
  isValidCut,
  protectedTailStart,
  SUMMARY_HEADER,
  userInstructions,
} from './history-analysis.js';
export type { Priority, ToolResultRef } from './history-analysis.js';
export { applyMediaWindow } from './media-window.js';
export { backfillReasoning, cleanThinking, THINKING_STYLE_RULES, thinkingRuleFor } from './thinking-cleaner.js';
export type { ThinkingStyle, ThinkingStyleRule } from './thinking-cleaner.js';
export { emptySummary, renderSummary, SUMMARY_FIELDS, structuredSummarySchema } from './structured-summary.js';
export type { CriticalCarry, StructuredSummary } from './structured-summary.js';
export type { Summarizer, SummaryInput } from './summarizer.js';
export { createExtractiveSummarizer, mergeSummaries } from './extractive-summarizer.js';
export type { ExtractiveSummarizerOptions } from './extractive-summarizer.js';
export { createLlmSummarizer, parseSummary } from './llm-summarizer.js';
export type { LlmSummarizerOptions } from './llm-summarizer.js';
export { measureRequest } from './request-tokens.js';
export type { RequestMeasure } from './request-tokens.js';
