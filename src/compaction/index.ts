export { breakpointsAfterRewrite } from './breakpoints-after-rewrite.js';
export type { Checkpoint, CheckpointStore } from './checkpoint-store.js';
export { createCheckpoint, DEFAULT_CHECKPOINT_DIR, FileCheckpointStore, MemoryCheckpointStore } from './checkpoint-store.js';
export type { ContextWindowRule } from './context-windows.js';
export { CONTEXT_WINDOW_RULES, contextWindowFor, DEFAULT_CONTEXT_WINDOW } from './context-windows.js';
export type { RewriteCost, RewriteCostInput } from './cost-model.js';
export { evaluateRewriteCost } from './cost-model.js';
export type { ExtractiveSummarizerOptions } from './extractive-summarizer.js';
export { createExtractiveSummarizer, mergeSummaries } from './extractive-summarizer.js';
export { DEFAULT_CONTEXT_DIR, FileOffloadStore } from './file-offload-store.js';
export type { Priority, ToolResultRef } from './history-analysis.js';
export {
  classifyToolResults,
  firstDifference,
  isSummaryMessage,
  isTurnStart,
  isValidCut,
  protectedTailStart,
  SUMMARY_ACK,
  SUMMARY_HEADER,
  userInstructions,
} from './history-analysis.js';
export type { IdlePlanInput, SummaryCost } from './idle-stage.js';
export type { FilteredToolResult, HeadTailLimits } from './ingestion-filter.js';
export { filterMessage, filterToolResult } from './ingestion-filter.js';
export type { LlmSummarizerOptions } from './llm-summarizer.js';
export { createLlmSummarizer, parseSummary } from './llm-summarizer.js';
export type { MaybePromise } from './maybe-promise.js';
export { applyMediaWindow } from './media-window.js';
export type { PlannedOffload, RewriteContext } from './observation-masking.js';
export type { OffloadRecord, OffloadStore } from './offload-store.js';
export { MemoryOffloadStore, restoreIdFor } from './offload-store.js';
export type { OffloadStoreErrorCode } from './offload-store-error.js';
export { OffloadStoreError } from './offload-store-error.js';
export type { CachePriceMultipliers, CompactionOptions, CompactionOptionsInput, CompactionThresholds } from './options.js';
export { DEFAULT_COMPACTION_OPTIONS, resolveCompactionOptions } from './options.js';
export { guardInput } from './oversized-input-guard.js';
export type {
  BeforeRequestContext,
  CompactionDecision,
  CompactionPipeline,
  CompactionPipelineOptions,
  PipelineSessionState,
} from './pipeline.js';
export { createCompactionPipeline } from './pipeline.js';
export type { PlanRewriteInput, RewritePlan } from './plan-rewrite.js';
export { planRewrite } from './plan-rewrite.js';
export type { RequestMeasure } from './request-tokens.js';
export { measureRequest } from './request-tokens.js';
export type { RunSyntheticSessionOptions, SyntheticRequest } from './run-synthetic-session.js';
export { runSyntheticSession } from './run-synthetic-session.js';
export { SESSION_NOTE_MAX_CHARACTERS, SESSION_NOTE_MAX_COUNT, SessionNotes } from './session-notes.js';
export type { SimulationCompactionOptions, SimulationHookContext, SummaryCallNote } from './simulation-hook.js';
export { createSimulationCompactionHook } from './simulation-hook.js';
export type { SkipPolicyInput, SkipVerdict } from './skip-policy.js';
export { applyReason, skipPolicy } from './skip-policy.js';
export type { CriticalCarry, StructuredSummary } from './structured-summary.js';
export { emptySummary, renderSummary, SUMMARY_FIELDS, structuredSummarySchema } from './structured-summary.js';
export type { Summarizer, SummaryInput } from './summarizer.js';
export type { SyntheticSession, SyntheticSessionOptions, SyntheticStep, SyntheticTurn } from './synthetic-session.js';
export { generateSyntheticSession, LATEST_RESTORE_ID, SYNTHETIC_TOOLS } from './synthetic-session.js';
export type { ThinkingStyle, ThinkingStyleRule } from './thinking-cleaner.js';
export { backfillReasoning, cleanThinking, THINKING_STYLE_RULES, thinkingRuleFor } from './thinking-cleaner.js';
export type { CompactionTool } from './tools.js';
export {
  COMPACTION_TOOL_DEFINITIONS,
  CONTEXT_RESTORE_TOOL,
  createContextRestoreTool,
  createSessionNoteTool,
  SESSION_NOTE_TOOL,
} from './tools.js';
