import type { Message } from '../model/content.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type CheckpointStore, createCheckpoint } from './checkpoint-store.js';
import { emitOffloaded, type StageEmit } from './emit-stage.js';
import { type FilteredToolResult, filterMessage, type HeadTailLimits } from './ingestion-filter.js';
import { RESTORE_TOOL_NAME } from './markers.js';
import type { OffloadStore } from './offload-store.js';
import type { CompactionOptions } from './options.js';
import { guardInput } from './oversized-input-guard.js';
import type { PipelineSessionState } from './pipeline-state.js';
import { messagesTokens } from './request-tokens.js';

/** What the ingestion filter rewrote in `beforeRequest`; its event waits for the request's measure. */
export interface IngestionRewrite {
  historyTokensRemoved: number;
  checkpointId: string;
  messagesRewritten: number;
}

/** The head + tail limits of the ingestion filter, from the resolved options. */
export function ingestionLimitsOf(options: CompactionOptions): HeadTailLimits {
  return {
    thresholdTokens: options.ingestionThresholdTokens,
    headTokens: options.ingestionHeadTokens,
    tailTokens: options.ingestionTailTokens,
  };
}

/**
 * Calls of `context_restore` in the assistant message before `history[index]`: their results are
 * what the agent asked back, kept whole.
 */
export function restoreCallIdsBefore(history: readonly Message[], index: number): Set<string> {
  const previous = history[index - 1];
  const ids = new Set<string>();
  if (previous?.role !== 'assistant') return ids;
  for (const block of previous.content) if (block.type === 'tool_use' && block.name === RESTORE_TOOL_NAME) ids.add(block.id);
  return ids;
}

export interface IngestionStage {
  session: Session;
  counter: TokenCounter;
  limits: HeadTailLimits;
  maxInputTokens: number;
  offloadStore: OffloadStore;
  emit: StageEmit;
}

/**
 * `ingest`: filter one message (large tool outputs kept as head + tail, the original offloaded),
 * refuse an oversized input, append it. Returns the restore ids created.
 */
export function* ingestMessageStage(stage: IngestionStage, message: Message): Generator<unknown, string[], unknown> {
  const { session, counter } = stage;
  const path = `messages[${session.sessionMessages.length + session.history.length}]`;
  const history = session.history;
  const { message: filtered, results } = filterMessage(message, stage.limits, counter, {
    sessionId: session.id,
    reason: 'ingestion',
    exemptToolUseIds: restoreCallIdsBefore(history, history.length),
  });
  guardInput(filtered, counter, stage.maxInputTokens, path);
  // Offload first: the marker must never name content the store does not hold.
  for (const result of results) if (result.offloaded) yield stage.offloadStore.put(result.offloaded);
  session.append(filtered);
  for (const result of results) if (result.offloaded) emitOffloaded(stage.emit, result.offloaded, result.keptTokens);
  return results.flatMap((result) => (result.offloaded ? [result.offloaded.id] : []));
}

/**
 * Before a request: messages appended without `ingest` since the last request have never been
 * sent, so no cache entry covers them and filtering them now is free. This is how drivers that
 * append directly (the simulator) still get the ingestion filter.
 */
export function* ingestPendingStage(
  stage: IngestionStage & { state: PipelineSessionState; checkpointStore: CheckpointStore; now: number },
): Generator<unknown, IngestionRewrite | null, unknown> {
  const { session, state, counter } = stage;
  const history = session.history;
  const from = Math.min(state.sentHistoryLength, history.length);
  let changed: Message[] | null = null;
  const results: FilteredToolResult[] = [];
  for (let index = from; index < history.length; index++) {
    const message = history[index] as Message;
    if (message.role !== 'user') continue;
    const filtered = filterMessage(message, stage.limits, counter, {
      sessionId: session.id,
      reason: 'ingestion',
      exemptToolUseIds: restoreCallIdsBefore(history, index),
    });
    if (filtered.results.length === 0) continue;
    changed ??= history.slice();
    changed[index] = filtered.message;
    results.push(...filtered.results);
  }
  if (!changed) return null;
  const checkpoint = createCheckpoint(session, state, 'ingestion', stage.now);
  yield stage.checkpointStore.put(checkpoint);
  state.checkpoints.push(checkpoint.id);
  stage.emit('checkpoint.created', {
    checkpointId: checkpoint.id,
    messageCount: session.sessionMessages.length + history.length,
  });
  for (const result of results) {
    if (!result.offloaded) continue;
    yield stage.offloadStore.put(result.offloaded);
    emitOffloaded(stage.emit, result.offloaded, result.keptTokens);
  }
  session.rewriteHistory(changed, 'compaction:ingestion');
  return {
    historyTokensRemoved: messagesTokens(history, counter) - messagesTokens(session.history, counter),
    checkpointId: checkpoint.id,
    messagesRewritten: history.length - from,
  };
}
