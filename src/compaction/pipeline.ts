import type { BreakpointRecord, CachetEvent, CompactionLayer, CompactionTimingRecord } from '../events/catalog.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/content.js';
import { ToolExecutionError, ValidationError } from '../model/errors.js';
import type { CanonicalRequest } from '../model/request.js';
import { Session, type SessionOptions } from '../session/session.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { applyStage } from './apply-stage.js';
import { type CheckpointStore, FileCheckpointStore } from './checkpoint-store.js';
import { createIngestEmitter, createRequestEmitter, type StageEmit } from './emit-stage.js';
import { createExtractiveSummarizer } from './extractive-summarizer.js';
import { FileOffloadStore } from './file-offload-store.js';
import { type IdlePlanInput, type IdleState, idleStage, keptWarm, recordGap } from './idle-stage.js';
import { type IngestionStage, ingestionLimitsOf, ingestMessageStage, ingestPendingStage } from './ingestion-stage.js';
import { judgeStage } from './judge-stage.js';
import { runAsync, runSync } from './maybe-promise.js';
import { type BeforeRequestContext, type Measurement, measureStage } from './measure-stage.js';
import type { OffloadStore } from './offload-store.js';
import { type CompactionOptions, type CompactionOptionsInput, resolveCompactionOptions } from './options.js';
import { type PipelineSessionState, PipelineStates, parsePipelineState } from './pipeline-state.js';
import { planStage } from './plan-stage.js';
import { emptyPlanVerdict } from './skip-policy.js';
import type { Summarizer } from './summarizer.js';
import { type ThinkingStyle, type ThinkingStyleRule, thinkingRuleFor } from './thinking-cleaner.js';
import { type CompactionTool, createContextRestoreTool, createSessionNoteTool } from './tools.js';

export type { IdlePlanInput } from './idle-stage.js';
export type { BeforeRequestContext } from './measure-stage.js';
export type { PipelineSessionState } from './pipeline-state.js';

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
   * Run when a pause starts (after a request went out): if a compaction is due once the cache is
   * cold, decide by cost whether to keep the prefix warm, compact when the cache is cold (at the
   * next request) or compact right before expiry (`compactIdle` at `compactAtMs` after the last
   * request); null when no rewrite would save anything. The next `compaction.planned` and
   * `compaction.applied` carry the decision as `timing`. After `keep-warm`, the next request is
   * taken to meet a warm cache while the planner's schedule held it (pass `cacheHot` otherwise).
   */
  planIdle(session: Session, input?: IdlePlanInput): CompactionTimingRecord | null;
  /**
   * Compact during a pause (`planIdle` chose `compact-before-expiry`): the rewrite is judged as
   * at a cold cache — the next request writes the prefix anyway — while the summariser still
   * finds the parent's entry alive. Counts as no request; its `request` is not to be sent.
   */
  compactIdle(session: Session, context?: { now?: number }): Promise<CompactionDecision>;
  compactIdleSync(session: Session, context?: { now?: number }): CompactionDecision;
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

/**
 * Cache-aware compaction for a session. Call `beforeRequest` before every request and send the
 * `request` it returns; feed tool results and user inputs through `ingest`.
 *
 * Each request goes through named stages, one file each: `ingestion-stage` (filter what was
 * appended since the last request), `measure-stage`, `plan-stage`, `skip-policy`, `apply-stage`;
 * `emit-stage` builds the events they share. This file only wires them.
 *
 * @example
 * const pipeline = createCompactionPipeline({ windowTokens: 200_000, counter });
 * await pipeline.ingest(session, { role: 'user', content: [{ type: 'text', text: 'Fix the build' }] });
 * const decision = await pipeline.beforeRequest(session, { now: Date.now() });
 * const request = decision.request; // breakpoints: decision.breakpoints after a rewrite
 */
export function createCompactionPipeline(input: CompactionPipelineOptions): CompactionPipeline {
  const options = resolveCompactionOptions(input);
  const states = new PipelineStates((session) => input.counter ?? counterForModel(input.provider ?? 'anthropic', session.model));
  const offloadStore = input.offloadStore ?? new FileOffloadStore();
  const checkpointStore = input.checkpointStore ?? new FileCheckpointStore();
  const summarizer = input.summarizer ?? createExtractiveSummarizer();
  const ingestionLimits = ingestionLimitsOf(options);
  const idleStates = new WeakMap<Session, IdleState>();
  const idleOf = (session: Session): IdleState => {
    const known = idleStates.get(session);
    if (known) return known;
    const idle: IdleState = { gapsMs: [], timing: null };
    idleStates.set(session, idle);
    return idle;
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
  const ingestionStage = (session: Session, emit: StageEmit): IngestionStage => ({
    session,
    counter: states.counter(session),
    limits: ingestionLimits,
    maxInputTokens: options.maxInputTokens,
    offloadStore,
    emit,
  });

  const pipeline: CompactionPipeline & { readonly liveSessions: number } = {
    options,

    ingest: (session, message) => runAsync(ingestMessageStage(ingestionStage(session, createIngestEmitter(session)), message)),
    ingestSync: (session, message) =>
      runSync(ingestMessageStage(ingestionStage(session, createIngestEmitter(session)), message), 'ingestSync'),

    tools(session) {
      return [
        createContextRestoreTool(offloadStore, { sessionId: session.id, bus: session.bus, clock: session.clock }),
        createSessionNoteTool(states.notes(session)),
      ];
    },

    async runTool(session, call) {
      const tool = pipeline.tools(session).find((candidate) => candidate.definition.name === call.name);
      if (!tool) return null;
      try {
        const content = await tool.run(call.input);
        states.state(session).notes = states.notes(session).toJSON();
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

    notes: (session) => states.notes(session).all,
    state: (session) => states.state(session),

    async restoreCheckpoint(checkpointId, restoreOptions = {}) {
      const checkpoint = await checkpointStore.get(checkpointId);
      if (!checkpoint)
        throw new ValidationError('checkpointId', 'the id of a stored checkpoint', `no checkpoint ${checkpointId}`);
      // Checked before the session is rebuilt: an invalid state is refused whole, never adopted.
      const state = parsePipelineState(structuredClone(checkpoint.pipelineState), checkpointId);
      const session = Session.fromJSON(checkpoint.session, restoreOptions);
      states.adopt(session, state);
      return session;
    },

    beforeRequest: (session, context) => runAsync(beforeRequestSteps(session, context)),
    beforeRequestSync: (session, context) => runSync(beforeRequestSteps(session, context), 'beforeRequestSync'),

    planIdle: (session, plan = {}) =>
      idleStage({
        session,
        state: states.state(session),
        idle: idleOf(session),
        options,
        counter: states.counter(session),
        rule: styleFor(session.model),
        provider: input.provider ?? 'anthropic',
        plan,
      }),
    compactIdle: (session, context = {}) => runAsync(beforeRequestSteps(session, { ...context, cacheHot: false }, true)),
    compactIdleSync: (session, context = {}) =>
      runSync(beforeRequestSteps(session, { ...context, cacheHot: false }, true), 'compactIdleSync'),

    get liveSessions() {
      return states.liveSessions;
    },
  };

  function* beforeRequestSteps(
    session: Session,
    given: BeforeRequestContext = {},
    duringPause = false,
  ): Generator<unknown, CompactionDecision, unknown> {
    const counter = states.counter(session);
    const state = states.state(session);
    const now = given.now ?? session.clock();
    const idle = idleOf(session);
    const timing = idle.timing ?? undefined;
    const context = { ...given, cacheHot: given.cacheHot ?? keptWarm(idle, state, options, now) };
    const events: CachetEvent[] = [];
    const emit = createRequestEmitter(session, now, events);
    const window = options.windowTokens;

    const ingestion = yield* ingestPendingStage({ ...ingestionStage(session, emit), state, checkpointStore, now });
    const measured = measureStage({ session, state, options, counter, now, context });
    const before = measured.tokens;
    const { utilisation, cacheHot } = measured;
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
    const decision = untouchedDecision(measured, events);
    const finish = () => {
      state.sentHistoryLength = session.history.length;
      idle.timing = null;
      if (duringPause) return decision;
      recordGap(idle, state, now);
      state.lastRequestAt = now;
      state.lastModel = session.model;
      state.requestIndex += 1;
      if (decision.tokensAfter > window) {
        emit('warning.raised', {
          source: 'compaction',
          message: `request of ${decision.tokensAfter} tokens exceeds the ${window}-token window after compaction`,
        });
      }
      return decision;
    };

    const planned = planStage({ session, state, options, counter, measured, rule: styleFor(session.model) });
    for (const warning of planned.plan.warnings) emit('warning.raised', { source: 'compaction', message: warning });
    const estimate = planned.estimate;
    if (!estimate) {
      const verdict = emptyPlanVerdict(utilisation, options.thresholds, cacheHot);
      decision.action = verdict.action;
      decision.reason = verdict.reason;
      if (verdict.skipped) emit('compaction.skipped', verdict.skipped);
      return finish();
    }

    const { layer, tokensToRebill } = estimate;
    const { steps } = planned.plan;
    decision.layer = layer;
    decision.steps = steps;
    decision.tokensToRebill = tokensToRebill;
    const { skip, reason } = judgeStage({
      model: session.model,
      state,
      options,
      measured,
      planned,
      estimate,
      now,
      emit,
      timing,
    });
    decision.reason = reason;
    if (skip) {
      decision.action = 'skipped';
      emit('compaction.skipped', { layer, reason: skip.reason, detail: skip.detail });
      return finish();
    }

    const applied = yield* applyStage({
      session,
      state,
      counter,
      now,
      planned,
      estimate,
      checkpointStore,
      offloadStore,
      summarizer,
      notes: states.notes(session),
      emit,
    });
    state.lastAppliedRequest = state.requestIndex;
    decision.action = 'applied';
    decision.tokensAfter = applied.tokensAfter;
    decision.checkpointId = applied.checkpointId;
    decision.breakpoints = applied.breakpoints;
    decision.request = applied.request;
    emit('compaction.applied', {
      layer,
      tokensBefore: before.total,
      tokensAfter: applied.tokensAfter,
      checkpointId: applied.checkpointId,
      messagesRewritten: applied.messagesRewritten,
      ...(timing ? { timing } : {}),
    });
    return finish();
  }

  return pipeline;
}

/** The decision for a request nothing is done to (yet): the request as measured. */
function untouchedDecision(measured: Measurement, events: CachetEvent[]): CompactionDecision {
  return {
    action: 'none',
    layer: null,
    steps: [],
    reason: 'below every threshold',
    utilisation: measured.utilisation,
    tokensBefore: measured.tokens.total,
    tokensAfter: measured.tokens.total,
    tokensToRebill: 0,
    cacheHot: measured.cacheHot,
    checkpointId: null,
    breakpoints: [],
    events,
    request: measured.request,
  };
}
