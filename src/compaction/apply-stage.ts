import type { BreakpointRecord } from '../events/catalog.js';
import type { Message } from '../model/content.js';
import type { CanonicalRequest } from '../model/request.js';
import { validatePairing } from '../model/validate.js';
import { assemble } from '../session/assemble.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { breakpointsAfterRewrite } from './breakpoints-after-rewrite.js';
import { type CheckpointStore, createCheckpoint } from './checkpoint-store.js';
import { emitOffloaded, type StageEmit } from './emit-stage.js';
import { firstDifference, SUMMARY_ACK, SUMMARY_HEADER } from './history-analysis.js';
import { isMasked } from './observation-masking.js';
import { type OffloadStore, restoreIdFor } from './offload-store.js';
import type { PipelineSessionState } from './pipeline-state.js';
import type { PlannedRewrite, RewriteEstimate } from './plan-stage.js';
import { measureRequest } from './request-tokens.js';
import type { SessionNotes } from './session-notes.js';
import { renderSummary, type StructuredSummary } from './structured-summary.js';
import type { Summarizer } from './summarizer.js';

export interface AppliedRewrite {
  checkpointId: string;
  request: CanonicalRequest;
  tokensAfter: number;
  breakpoints: BreakpointRecord[];
  messagesRewritten: number;
}

/**
 * Apply stage: checkpoint the session, offload what the plan took out (every tool output of a
 * summarised span too, so the summary can point at it by id), summarise, rewrite the history and
 * verify the result still validates.
 */
export function* applyStage(input: {
  session: Session;
  state: PipelineSessionState;
  counter: TokenCounter;
  now: number;
  planned: PlannedRewrite;
  estimate: RewriteEstimate;
  checkpointStore: CheckpointStore;
  offloadStore: OffloadStore;
  summarizer: Summarizer;
  notes: SessionNotes;
  emit: StageEmit;
}): Generator<unknown, AppliedRewrite, unknown> {
  const { session, state, now, planned, emit } = input;
  const { original, plan, rewrite } = planned;
  const { history, tailStart, refs, summaryPlanned } = plan;
  const { critical, layer } = input.estimate;
  const checkpoint = createCheckpoint(session, state, layer, now);
  yield input.checkpointStore.put(checkpoint);
  state.checkpoints.push(checkpoint.id);
  emit('checkpoint.created', { checkpointId: checkpoint.id, messageCount: session.sessionMessages.length + original.length });

  let newHistory = history;
  let summaryEnd = -1;
  if (summaryPlanned && critical) {
    const restoreIds = new Map<string, string>();
    for (const ref of refs) {
      if (ref.messageIndex >= tailStart || isMasked(ref.block)) continue;
      const restoreId = restoreIdFor(ref.block.content);
      rewrite.offloads.push({
        record: {
          id: restoreId,
          sessionId: session.id,
          toolUseId: ref.toolUseId,
          reason: 'summary',
          content: ref.block.content,
          originalTokens: ref.tokens,
        },
        keptTokens: 0,
      });
      restoreIds.set(ref.toolUseId, restoreId);
    }
    const summary = (yield input.summarizer.summarize({
      sessionId: session.id,
      span: history.slice(0, tailStart),
      previous: state.summary,
      restoreIds,
      notes: input.notes.all,
      // The session before the rewrite: a summariser that forks it reads its cache.
      parent: {
        session,
        keptMessages: history.length - tailStart,
        lastRequestAt: state.lastRequestAt,
        sentHistoryLength: state.sentHistoryLength,
      },
      bus: session.bus,
      now,
    })) as StructuredSummary;
    summary.sessionNotes = [...input.notes.all];
    const provenance = `(compacted before request ${state.requestIndex + 1}; the full earlier conversation is archived in checkpoint ${checkpoint.id}; tool outputs are restorable with context_restore)`;
    const text = renderSummary(summary, critical, SUMMARY_HEADER, provenance);
    const tail = history.slice(tailStart);
    const pair: Message[] = [{ role: 'user', content: [{ type: 'text', text }] }];
    if (tail[0]?.role === 'user') pair.push({ role: 'assistant', content: [{ type: 'text', text: SUMMARY_ACK }] });
    newHistory = [...pair, ...tail];
    summaryEnd = pair.length - 1;
    state.summary = summary;
    state.carried = { userInstructions: critical.userInstructions, activeErrors: critical.activeErrorRecords };
  }
  const seenOffloads = new Set<string>();
  for (const offload of rewrite.offloads) {
    if (seenOffloads.has(offload.record.id)) continue;
    seenOffloads.add(offload.record.id);
    yield input.offloadStore.put(offload.record);
    emitOffloaded(emit, offload.record, offload.keptTokens);
  }
  session.rewriteHistory(newHistory, `compaction:${layer}`);
  const request = assemble(session, { now });
  // Invariant: the request still passes canonical validation (rewriteHistory validated the history).
  validatePairing(request.messages, 'messages', { allowPendingAtEnd: true });
  return {
    checkpointId: checkpoint.id,
    request,
    tokensAfter: measureRequest(request, input.counter).total,
    breakpoints: breakpointsAfterRewrite(request, summaryEnd),
    messagesRewritten: summaryPlanned ? original.length : original.length - firstDifference(original, newHistory),
  };
}
