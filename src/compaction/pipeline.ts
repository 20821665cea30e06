import type { BreakpointRecord, CachetEvent, CompactionLayer, EventPayloads, EventType } from '../events/catalog.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/content.js';
import { ToolExecutionError, ValidationError } from '../model/errors.js';
import type { CanonicalRequest } from '../model/request.js';
import { validatePairing } from '../model/validate.js';
import { assemble } from '../session/assemble.js';
import { Session, type SessionOptions } from '../session/session.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { breakpointsAfterRewrite } from './breakpoints-after-rewrite.js';
import { type CheckpointStore, createCheckpoint, FileCheckpointStore } from './checkpoint-store.js';
import { evaluateRewriteCost } from './cost-model.js';
import { criticalCarry } from './critical-carry.js';
import { createExtractiveSummarizer } from './extractive-summarizer.js';
import { FileOffloadStore } from './file-offload-store.js';
import { firstDifference, SUMMARY_ACK, SUMMARY_HEADER } from './history-analysis.js';
import { type FilteredToolResult, filterMessage } from './ingestion-filter.js';
import { RESTORE_TOOL_NAME } from './markers.js';
import { runAsync, runSync } from './maybe-promise.js';
import { isMasked, type RewriteContext } from './observation-masking.js';
import { type OffloadStore, restoreIdFor } from './offload-store.js';
import { type CompactionOptions, type CompactionOptionsInput, resolveCompactionOptions } from './options.js';
import { guardInput } from './oversized-input-guard.js';
import { planRewrite } from './plan-rewrite.js';
import { measureRequest, messagesTokens } from './request-tokens.js';
import { SessionNotes } from './session-notes.js';
import { emptySummary, renderSummary, type StructuredSummary } from './structured-summary.js';
import type { Summarizer } from './summarizer.js';
import { type ThinkingStyle, type ThinkingStyleRule, thinkingRuleFor } from './thinking-cleaner.js';
import { type CompactionTool, createContextRestoreTool, createSessionNoteTool } from './tools.js';

export interface CompactionPipelineOptions extends CompactionOptionsInput {
  /** Token counter for the session's model; default `counterForModel(provider, session.model)` from `src/tokens`. */
  counter?: TokenCounter;
  /** Provider id for the default counter (default `anthropic`). */
  provider?: string;
  /** Where offloaded content goes; default files under `.cachet/context/`. */
  offloadStore?: OffloadStore;
  /** Where checkpoints go; default files under `.cachet/checkpoints/`. */
  checkpointStore?: CheckpointStore;
  /** Default: the extractive summariser (no model). */
  summarizer?: Summarizer;
  /** Reasoning style of the session's model; `auto` looks it up in `thinkingRules` (default `auto`). */
  thinkingStyle?: ThinkingStyle | 'auto';
  thinkingRules?: readonly ThinkingStyleRule[];
}

export interface BeforeRequestContext {
  /** The request's time (default: the session's clock). */
  now?: number;
  /** Overrides the pipeline's idle-time estimate of the provider cache state. */
  cacheHot?: boolean;
  /** Overrides `expectedRemainingRequests` (a simulator knows how many requests are left). */
  remainingRequests?: number;
}

/**
 * What `beforeRequest` did. Send `request`: it is what `assemble(session, { now })` returns
 * after the call, already assembled to measure, so tail providers render once per request.
 */
export interface CompactionDecision {
  action: 'none' | 'skipped' | 'applied';
  layer: CompactionLayer | null;
  steps: CompactionLayer[];
  reason: string;
  utilisation: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensToRebill: number;
  cacheHot: boolean;
  checkpointId: string | null;
  /**
   * After a rewrite: where the new prefix should carry cache breakpoints (static end, end of the
   * summary pair, last persisted block), so the rewrite is written to cache once.
   */
  breakpoints: BreakpointRecord[];
  /** Events emitted during this call, in order (also published on the session's bus). */
  events: CachetEvent[];
  /** The request to send, assembled at `now` from the session as this call left it. */
  request: CanonicalRequest;
}

/** The pipeline's per-session state; archived in every checkpoint. */
export interface PipelineSessionState {
  lastRequestAt: number | null;
  lastModel: string | null;
  requestIndex: number;
  lastAppliedRequest: number | null;
  /** History length when the last request was planned: later messages have never been sent. */
  sentHistoryLength: number;
  summary: StructuredSummary | null;
  carried: { userInstructions: string[]; activeErrors: Array<{ toolName: string; text: string }> };
  notes: string[];
  checkpoints: string[];
}

export interface CompactionPipeline {
  readonly options: CompactionOptions;
  /**
   * Run before each request: measure utilisation, plan the layers the thresholds and the cache
   * state call for, cost the rewrite, and apply it (checkpoint, offload, `rewriteHistory`) or skip it.
   */
  beforeRequest(session: Session, context?: BeforeRequestContext): Promise<CompactionDecision>;
  /**
   * `beforeRequest` for synchronous callers (the simulator). Needs stores and a summariser that
   * answer synchronously (the memory stores, the extractive summariser); throws otherwise.
   */
  beforeRequestSync(session: Session, context?: BeforeRequestContext): CompactionDecision;
  /**
   * Append a message through the ingestion filter: large tool outputs are kept as head + tail
   * (the original offloaded), and inputs above `maxInputTokens` are refused with
   * `OversizedInputError` before they enter the session. Returns the restore ids created.
   */
  ingest(session: Session, message: Message): Promise<string[]>;
  /** `ingest` for synchronous callers (memory offload store only). */
  ingestSync(session: Session, message: Message): string[];
  /** `context_restore` and `session_note`, bound to a session. */
  tools(session: Session): CompactionTool[];
  /**
   * Run a compaction tool call and build its result block; null when the tool is not one of
   * ours. Tool failures become an error result (`isError: true`), as the agent should see them.
   */
  runTool(session: Session, call: ToolUseBlock): Promise<ToolResultBlock | null>;
  notes(session: Session): readonly string[];
  state(session: Session): Readonly<PipelineSessionState>;
  /** Rebuild the exact session archived in a checkpoint (and this pipeline's state for it). */
  restoreCheckpoint(checkpointId: string, options?: Pick<SessionOptions, 'tail' | 'bus' | 'clock' | 'limits'>): Promise<Session>;
}

/** What the ingestion filter rewrote in `beforeRequest`; its event waits for the request's measure. */
interface IngestionRewrite {
  historyTokensRemoved: number;
  checkpointId: string;
  messagesRewritten: number;
}

const LAYER_STRENGTH: readonly CompactionLayer[] = ['thinking', 'media', 'light', 'ttl-pruning', 'priority', 'summary'];

/**
 * Cache-aware compaction for a session. Call `beforeRequest` before every request and send the
 * `request` it returns; feed tool results and user inputs through `ingest`.
 *
 * @example
 * const pipeline = createCompactionPipeline({ windowTokens: 200_000, counter });
 * await pipeline.ingest(session, { role: 'user', content: [{ type: 'text', text: 'Fix the build' }] });
 * const decision = await pipeline.beforeRequest(session, { now: Date.now() });
 * const request = decision.request; // breakpoints: decision.breakpoints after a rewrite
 */
export function createCompactionPipeline(input: CompactionPipelineOptions): CompactionPipeline {
  const options = resolveCompactionOptions(input);
  const counters = new Map<string, TokenCounter>();
  const counterFor = (session: Session): TokenCounter => {
    if (input.counter) return input.counter;
    const key = `${session.id}\u0000${session.model}`;
    let counter = counters.get(key);
    if (!counter) {
      counter = counterForModel(input.provider ?? 'anthropic', session.model);
      counters.set(key, counter);
    }
    return counter;
  };
  const offloadStore = input.offloadStore ?? new FileOffloadStore();
  const checkpointStore = input.checkpointStore ?? new FileCheckpointStore();
  const summarizer = input.summarizer ?? createExtractiveSummarizer();
  const states = new Map<string, PipelineSessionState>();
  const noteBooks = new Map<string, SessionNotes>();

  const stateFor = (session: Session): PipelineSessionState => {
    let state = states.get(session.id);
    if (!state) {
      state = {
        lastRequestAt: null,
        lastModel: null,
        requestIndex: 0,
        lastAppliedRequest: null,
        sentHistoryLength: 0,
        summary: null,
        carried: { userInstructions: [], activeErrors: [] },
        notes: [],
        checkpoints: [],
      };
      states.set(session.id, state);
    }
    return state;
  };
  const notesFor = (session: Session): SessionNotes => {
    let notes = noteBooks.get(session.id);
    if (!notes) {
      notes = new SessionNotes(stateFor(session).notes);
      noteBooks.set(session.id, notes);
    }
    return notes;
  };
  const styleFor = (model: string): ThinkingStyleRule | null => {
    if (input.thinkingStyle && input.thinkingStyle !== 'auto') {
      return {
        modelPrefix: '',
        style: input.thinkingStyle,
        requiresReasoningOnToolCalls: input.thinkingStyle === 'reasoning-content',
        source: 'options.thinkingStyle',
      };
    }
    return thinkingRuleFor(model, input.thinkingRules);
  };

  const ingestionLimits = {
    thresholdTokens: options.ingestionThresholdTokens,
    headTokens: options.ingestionHeadTokens,
    tailTokens: options.ingestionTailTokens,
  };

  function* ingestSteps(session: Session, message: Message): Generator<unknown, string[], unknown> {
    const counter = counterFor(session);
    const path = `messages[${session.sessionMessages.length + session.history.length}]`;
    const { message: filtered, results } = filterMessage(
      message,
      {
        thresholdTokens: options.ingestionThresholdTokens,
        headTokens: options.ingestionHeadTokens,
        tailTokens: options.ingestionTailTokens,
      },
      counter,
      { sessionId: session.id, reason: 'ingestion', exemptToolUseIds: restoreCallIds(session) },
    );
    guardInput(filtered, counter, options.maxInputTokens, path);
    // Offload first: the marker must never name content the store does not hold.
    for (const result of results) if (result.offloaded) yield offloadStore.put(result.offloaded);
    session.append(filtered);
    for (const result of results) {
      if (!result.offloaded) continue;
      session.bus?.emit('context.offloaded', session.id, session.clock(), {
        restoreId: result.offloaded.id,
        toolUseId: result.offloaded.toolUseId,
        originalTokens: result.offloaded.originalTokens,
        keptTokens: result.keptTokens,
      });
    }
    return results.flatMap((result) => (result.offloaded ? [result.offloaded.id] : []));
  }

  const pipeline: CompactionPipeline = {
    options,

    ingest: (session, message) => runAsync(ingestSteps(session, message)),
    ingestSync: (session, message) => runSync(ingestSteps(session, message), 'ingestSync'),

    tools(session) {
      return [
        createContextRestoreTool(offloadStore, { sessionId: session.id, bus: session.bus, clock: session.clock }),
        createSessionNoteTool(notesFor(session)),
      ];
    },

    async runTool(session, call) {
      const tool = pipeline.tools(session).find((candidate) => candidate.definition.name === call.name);
      if (!tool) return null;
      try {
        const content = await tool.run(call.input);
        stateFor(session).notes = notesFor(session).toJSON();
        return { type: 'tool_result', toolUseId: call.id, content };
      } catch (error) {
        if (!(error instanceof ToolExecutionError)) throw error;
        session.bus?.emit('tool.failed', session.id, session.clock(), {
          toolName: call.name,
          toolUseId: call.id,
          code: error.code,
          message: error.message,
        });
        return { type: 'tool_result', toolUseId: call.id, content: [{ type: 'text', text: error.message }], isError: true };
      }
    },

    notes: (session) => notesFor(session).all,
    state: (session) => stateFor(session),

    async restoreCheckpoint(checkpointId, restoreOptions = {}) {
      const checkpoint = await checkpointStore.get(checkpointId);
      if (!checkpoint)
        throw new ValidationError('checkpointId', 'the id of a stored checkpoint', `no checkpoint ${checkpointId}`);
      const session = Session.fromJSON(checkpoint.session, restoreOptions);
      const state = structuredClone(checkpoint.pipelineState) as PipelineSessionState;
      states.set(session.id, state);
      noteBooks.set(session.id, new SessionNotes(state.notes));
      return session;
    },

    beforeRequest: (session, context) => runAsync(beforeRequestSteps(session, context)),
    beforeRequestSync: (session, context) => runSync(beforeRequestSteps(session, context), 'beforeRequestSync'),
  };
  function* ingestPending(
    session: Session,
    state: PipelineSessionState,
    now: number,
    emit: <T extends EventType>(type: T, payload: EventPayloads[T]) => void,
  ): Generator<unknown, IngestionRewrite | null, unknown> {
    const history = session.history;
    const from = Math.min(state.sentHistoryLength, history.length);
    const counter = counterFor(session);
    let changed: Message[] | null = null;
    const results: FilteredToolResult[] = [];
    for (let index = from; index < history.length; index++) {
      const message = history[index] as Message;
      if (message.role !== 'user') continue;
      const previous = history[index - 1];
      const exempt = new Set<string>();
      if (previous?.role === 'assistant') {
        for (const block of previous.content)
          if (block.type === 'tool_use' && block.name === RESTORE_TOOL_NAME) exempt.add(block.id);
      }
      const filtered = filterMessage(message, ingestionLimits, counter, {
        sessionId: session.id,
        reason: 'ingestion',
        exemptToolUseIds: exempt,
      });
      if (filtered.results.length === 0) continue;
      changed ??= history.slice();
      changed[index] = filtered.message;
      results.push(...filtered.results);
    }
    if (!changed) return null;
    const checkpoint = createCheckpoint(session, state, 'ingestion', now);
    yield checkpointStore.put(checkpoint);
    state.checkpoints.push(checkpoint.id);
    emit('checkpoint.created', { checkpointId: checkpoint.id, messageCount: session.sessionMessages.length + history.length });
    for (const result of results) {
      if (!result.offloaded) continue;
      yield offloadStore.put(result.offloaded);
      emit('context.offloaded', {
        restoreId: result.offloaded.id,
        toolUseId: result.offloaded.toolUseId,
        originalTokens: result.offloaded.originalTokens,
        keptTokens: result.keptTokens,
      });
    }
    session.rewriteHistory(changed, 'compaction:ingestion');
    return {
      historyTokensRemoved: messagesTokens(history, counter) - messagesTokens(session.history, counter),
      checkpointId: checkpoint.id,
      messagesRewritten: history.length - from,
    };
  }

  function* beforeRequestSteps(
    session: Session,
    context: BeforeRequestContext = {},
  ): Generator<unknown, CompactionDecision, unknown> {
    const counter = counterFor(session);
    const state = stateFor(session);
    const now = context.now ?? session.clock();
    const events: CachetEvent[] = [];
    const emit = <T extends EventType>(type: T, payload: EventPayloads[T]) => {
      const event =
        session.bus?.emit(type, session.id, now, payload) ??
        ({ type, sessionId: session.id, at: now, seq: -1, payload } as CachetEvent<T>);
      events.push(event as CachetEvent);
    };
    // Messages appended without `ingest` since the last request have never been sent, so no cache
    // entry covers them: filtering them now is free. This is how drivers that append directly
    // (the simulator) still get the ingestion filter.
    const ingestion = yield* ingestPending(session, state, now, emit);

    const modelChanged = state.lastModel !== null && state.lastModel !== session.model;
    const cacheHot =
      context.cacheHot ?? (!modelChanged && state.lastRequestAt !== null && now - state.lastRequestAt <= options.cacheTtlMs);
    const remaining = context.remainingRequests ?? options.expectedRemainingRequests;
    const window = options.windowTokens;

    const beforeRequest = assemble(session, { now });
    const before = measureRequest(beforeRequest, counter);
    if (ingestion) {
      // Only history changed, so the request measured now, plus what the filter removed, is the
      // request before it: one assembly (one tail render) serves both.
      emit('compaction.applied', {
        layer: 'ingestion',
        tokensBefore: before.total + ingestion.historyTokensRemoved,
        tokensAfter: before.total,
        checkpointId: ingestion.checkpointId,
        messagesRewritten: ingestion.messagesRewritten,
      });
    }
    const utilisation = before.total / window;
    const { monitor, light, full, emergency } = options.thresholds;
    const decision: CompactionDecision = {
      action: 'none',
      layer: null,
      steps: [],
      reason: 'below every threshold',
      utilisation,
      tokensBefore: before.total,
      tokensAfter: before.total,
      tokensToRebill: 0,
      cacheHot,
      checkpointId: null,
      breakpoints: [],
      events,
      request: beforeRequest,
    };
    const finish = () => {
      state.lastRequestAt = now;
      state.lastModel = session.model;
      state.sentHistoryLength = session.history.length;
      state.requestIndex += 1;
      if (decision.tokensAfter > window) {
        emit('warning.raised', {
          source: 'compaction',
          message: `request of ${decision.tokensAfter} tokens exceeds the ${window}-token window after compaction`,
        });
      }
      return decision;
    };

    // ---- plan: every step works on a copy; nothing touches the session until the decision.
    const original = session.history;
    const rewrite: RewriteContext = { sessionId: session.id, counter, offloads: [] };
    const plan = planRewrite({
      history: original,
      counter,
      options,
      utilisation,
      cacheHot,
      modelChanged,
      rule: styleFor(session.model),
      fixedTokens: before.static + before.tail,
      staticEndsWithUser: session.sessionMessages.at(-1)?.role === 'user',
      rewrite,
    });
    const { steps, tailStart, refs, summaryPlanned, mandatory } = plan;
    const history = plan.history;
    for (const warning of plan.warnings) emit('warning.raised', { source: 'compaction', message: warning });
    if (steps.length === 0) {
      if (utilisation >= light) {
        decision.action = 'skipped';
        decision.reason = 'nothing left to compress outside the protected tail';
        emit('compaction.skipped', {
          layer: utilisation >= full ? 'priority' : 'light',
          reason: 'nothing-to-do',
          detail: decision.reason,
        });
      } else if (utilisation >= monitor) {
        decision.reason = cacheHot ? 'monitoring; the cache is hot' : 'monitoring';
      }
      return finish();
    }

    // ---- estimate the result and cost it.
    const critical = summaryPlanned ? criticalCarry(state, history.slice(0, tailStart), refs, history, tailStart) : null;
    const summaryEstimate = critical
      ? counter.countText(renderSummary(state.summary ?? emptySummary(), critical, SUMMARY_HEADER, '')) + 800
      : 0;
    const historyAfter = summaryPlanned
      ? summaryEstimate + messagesTokens(history.slice(tailStart), counter)
      : messagesTokens(history, counter);
    const tokensAfter = before.static + historyAfter + before.tail;
    const changedFrom = summaryPlanned ? 0 : firstDifference(original, history);
    const tokensToRebill = summaryPlanned ? historyAfter : messagesTokens(history.slice(changedFrom), counter);
    const saved = before.total - tokensAfter;
    const cost = evaluateRewriteCost({
      prefixBefore: before.static + before.history,
      prefixAfter: before.static + historyAfter,
      staticTokens: before.static,
      tokensToRebill,
      cacheHot,
      expectedRemainingRequests: remaining,
      prices: options.prices,
    });
    const layer: CompactionLayer = utilisation >= emergency ? 'emergency' : strongest(steps);
    decision.layer = layer;
    decision.steps = steps;
    decision.tokensToRebill = tokensToRebill;
    const sinceLast =
      state.lastAppliedRequest === null ? Number.POSITIVE_INFINITY : state.requestIndex - state.lastAppliedRequest;
    let skip: { reason: 'hot-cache' | 'thrashing' | 'too-little-saving' | 'nothing-to-do'; detail: string } | null = null;
    if (mandatory || utilisation >= emergency)
      skip = saved <= 0 && !mandatory ? { reason: 'nothing-to-do', detail: 'the planned rewrite saves no tokens' } : null;
    else if (saved <= 0) skip = { reason: 'nothing-to-do', detail: 'the planned rewrite saves no tokens' };
    else if (sinceLast < options.minIntervalRequests) {
      skip = {
        reason: 'thrashing',
        detail: `${sinceLast} requests since the last compaction; the minimum is ${options.minIntervalRequests}`,
      };
    } else if (saved / before.total < options.minSavingShare) {
      skip = {
        reason: 'too-little-saving',
        detail: `saves ${saved} of ${before.total} tokens (${pct(saved / before.total)}), below the minimum ${pct(options.minSavingShare)}`,
      };
    } else if (cacheHot && !cost.pays) {
      skip = {
        reason: 'hot-cache',
        detail: `re-billing ${tokensToRebill} tokens to save ${saved} per request pays back after ${Number.isFinite(cost.breakEvenRequests) ? cost.breakEvenRequests.toFixed(1) : 'never'} requests; ${remaining} expected`,
      };
    }
    const reason = skip
      ? skip.detail
      : mandatory
        ? `model switched to ${session.model}: tool-call messages need reasoning back-filled`
        : utilisation >= emergency
          ? `emergency at ${pct(utilisation)} of the window`
          : cacheHot
            ? `pays back after ${cost.breakEvenRequests.toFixed(1)} of ${remaining} expected requests`
            : `cache is cold (idle ${state.lastRequestAt === null ? 'since start' : `${Math.round((now - state.lastRequestAt) / 1000)}s`}); the prefix is written anyway`;
    emit('compaction.planned', {
      layer,
      utilisation,
      tokensToRebill: cacheHot ? tokensToRebill : 0,
      tokensSavedPerRequest: Math.max(0, saved),
      decision: skip ? 'skip' : 'apply',
      reason,
      cacheState: cacheHot ? 'hot' : 'cold',
      breakEvenRequests: Number.isFinite(cost.breakEvenRequests) ? cost.breakEvenRequests : null,
      steps,
    });
    decision.reason = reason;
    if (skip) {
      decision.action = 'skipped';
      emit('compaction.skipped', { layer, reason: skip.reason, detail: skip.detail });
      return finish();
    }

    // ---- apply: checkpoint, offload, summarise, rewrite, verify.
    const checkpoint = createCheckpoint(session, state, layer, now);
    yield checkpointStore.put(checkpoint);
    state.checkpoints.push(checkpoint.id);
    emit('checkpoint.created', { checkpointId: checkpoint.id, messageCount: session.sessionMessages.length + original.length });

    let newHistory = history;
    let summaryEnd = -1;
    if (summaryPlanned && critical) {
      // Every tool output of the span is offloaded, so the summary can point at it by id.
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
      const summary = (yield summarizer.summarize({
        sessionId: session.id,
        span: history.slice(0, tailStart),
        previous: state.summary,
        restoreIds,
        notes: notesFor(session).all,
        bus: session.bus,
        now,
      })) as StructuredSummary;
      summary.sessionNotes = [...notesFor(session).all];
      const provenance = `(compacted before request ${state.requestIndex + 1}; the full earlier conversation is archived in checkpoint ${checkpoint.id}; tool outputs are restorable with context_restore)`;
      const text = renderSummary(summary, critical, SUMMARY_HEADER, provenance);
      const tail = history.slice(tailStart);
      const pair: Message[] = [{ role: 'user', content: [{ type: 'text', text }] }];
      if (tail[0]?.role === 'user') pair.push({ role: 'assistant', content: [{ type: 'text', text: SUMMARY_ACK }] });
      newHistory = [...pair, ...tail];
      summaryEnd = pair.length - 1;
      state.summary = summary;
      state.carried = {
        userInstructions: critical.userInstructions,
        activeErrors: critical.activeErrorRecords,
      };
    }
    const seenOffloads = new Set<string>();
    for (const offload of rewrite.offloads) {
      if (seenOffloads.has(offload.record.id)) continue;
      seenOffloads.add(offload.record.id);
      yield offloadStore.put(offload.record);
      emit('context.offloaded', {
        restoreId: offload.record.id,
        toolUseId: offload.record.toolUseId,
        originalTokens: offload.record.originalTokens,
        keptTokens: offload.keptTokens,
      });
    }
    const messagesBefore = original.length;
    session.rewriteHistory(newHistory, `compaction:${layer}`);
    const afterRequest = assemble(session, { now });
    // Invariant: the request still passes canonical validation (rewriteHistory validated the history).
    validatePairing(afterRequest.messages, 'messages', { allowPendingAtEnd: true });
    const after = measureRequest(afterRequest, counter);
    state.lastAppliedRequest = state.requestIndex;
    decision.action = 'applied';
    decision.tokensAfter = after.total;
    decision.checkpointId = checkpoint.id;
    decision.breakpoints = breakpointsAfterRewrite(afterRequest, summaryEnd);
    decision.request = afterRequest;
    emit('compaction.applied', {
      layer,
      tokensBefore: before.total,
      tokensAfter: after.total,
      checkpointId: checkpoint.id,
      messagesRewritten: summaryPlanned ? messagesBefore : messagesBefore - firstDifference(original, newHistory),
    });
    return finish();
  }

  return pipeline;
}

/** Calls of `context_restore` in the last assistant message: their results are what the agent asked back, kept whole. */
function restoreCallIds(session: Session): Set<string> {
  const last = session.history.at(-1);
  const ids = new Set<string>();
  if (last?.role !== 'assistant') return ids;
  for (const block of last.content) if (block.type === 'tool_use' && block.name === RESTORE_TOOL_NAME) ids.add(block.id);
  return ids;
}

function strongest(steps: readonly CompactionLayer[]): CompactionLayer {
  let best: CompactionLayer = steps[0] ?? 'light';
  for (const step of steps) if (LAYER_STRENGTH.indexOf(step) > LAYER_STRENGTH.indexOf(best)) best = step;
  return best;
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
