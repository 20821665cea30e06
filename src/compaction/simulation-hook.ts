import type { Session } from '../session/session.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { contextWindowFor } from './context-windows.js';
import { createExtractiveSummarizer } from './extractive-summarizer.js';
import type { IdlePlanInput } from './idle-stage.js';
import { buildForkInstruction, freshSummaryText } from './llm-summarizer.js';
import { MemoryOffloadStore } from './offload-store.js';
import { type CompactionPipeline, type CompactionPipelineOptions, createCompactionPipeline } from './pipeline.js';
import type { Summarizer } from './summarizer.js';

/** What the simulator hands the hook before each request (structurally its `CompactionHook` context). */
export interface SimulationHookContext {
  driver: { name?: string; session: Session };
  at: number;
  /** Requests left in the workload, this one included: the cost model's horizon. */
  remainingRequests?: number;
}

export interface SimulationCompactionOptions extends Partial<CompactionPipelineOptions> {
  provider: string;
  model: string;
  /**
   * Time each pause's compaction by the cache (`planIdle` after every request that leaves the
   * session above the monitor threshold; `compactIdleSync` before expiry when it pays) [true].
   */
  timeByCache?: boolean;
  /** Gaps of earlier sessions, ms, priced with the session's own (`IdlePlanInput.priorGapsMs`) [none]. */
  priorGapsMs?: readonly number[];
  /** The auxiliary model a fresh summary call would run on, for billing each summary [the session's model]. */
  summaryModel?: string;
  /** The summary call's cost per pause (`IdlePlanInput.summaryCost`) [none: the extractive summariser calls no model]. */
  summaryCost?: IdlePlanInput['summaryCost'];
}

/**
 * A summary call the compaction asked for, for the simulator to bill as the LLM summariser would
 * send it: a fork of the parent's last request with `instruction` after its last block, or a
 * fresh call whose prompt is `freshPrompt` (the instructions and the transcript as text).
 */
export interface SummaryCallNote {
  at: number;
  instruction: string;
  freshPrompt: string;
  /** The auxiliary model of the fresh call (`summaryModel`), when set. */
  auxModel?: string;
}

/**
 * The compaction hook for `cachet simulate --compaction`: before each request of the `cachet`
 * strategy it runs `beforeRequestSync` on the strategy's session with the workload's clock, then
 * plans the pause that follows (`planIdle`) and, when compacting right before expiry pays, runs
 * `compactIdleSync` at that time if the next request comes later.
 * Stores are in memory and the summary's text is extractive, so the simulation stays synchronous
 * and offline, but each summary is also returned as a call to bill (`SummaryCallNote`: the fork
 * and the fresh call the LLM summariser would price); events go to the session's bus (and so to
 * `--events`). The window defaults to
 * the model's (`CONTEXT_WINDOW_RULES`); harness strategies are left alone.
 *
 * @example
 * registerSimulateCommand(program, (options) => createSimulationCompactionHook(options));
 */
export function createSimulationCompactionHook(options: SimulationCompactionOptions): ((context: SimulationHookContext) => {
  summaryCalls: SummaryCallNote[];
}) & {
  pipeline: CompactionPipeline;
} {
  const { provider, model, timeByCache = true, summaryCost, priorGapsMs, summarizer, summaryModel, ...rest } = options;
  let summaryCalls: SummaryCallNote[] = [];
  const pipeline = createCompactionPipeline({
    windowTokens: contextWindowFor(model),
    provider,
    offloadStore: new MemoryOffloadStore(),
    checkpointStore: new MemoryCheckpointStore(),
    ...rest,
    summarizer: notingCalls(summarizer ?? createExtractiveSummarizer(), (note) =>
      summaryCalls.push(summaryModel ? { ...note, auxModel: summaryModel } : note),
    ),
  });
  // The pause after the last request, when it was planned: compact before expiry if chosen.
  let pause: { session: Session; compactAt: number | null } | null = null;
  const hook = (context: SimulationHookContext) => {
    summaryCalls = [];
    const calls = () => ({ summaryCalls });
    // Only Cachet's own session is compacted; the harness strategies are baselines.
    if (context.driver.name !== undefined && context.driver.name !== 'cachet') return calls();
    const session = context.driver.session;
    if (pause?.session === session && pause.compactAt !== null && context.at > pause.compactAt) {
      pipeline.compactIdleSync(session, { now: pause.compactAt });
    }
    pause = null;
    const decision = pipeline.beforeRequestSync(session, {
      now: context.at,
      ...(context.remainingRequests === undefined ? {} : { remainingRequests: context.remainingRequests }),
    });
    const after = (context.remainingRequests ?? 2) - 1;
    // Below the monitor threshold no rewrite is due even at a cold cache: nothing to time.
    if (!timeByCache || after < 1 || decision.tokensAfter < pipeline.options.thresholds.monitor * pipeline.options.windowTokens) {
      return calls();
    }
    const timing = pipeline.planIdle(session, {
      now: context.at,
      remainingRequests: after,
      ...(summaryCost ? { summaryCost } : {}),
      ...(priorGapsMs ? { priorGapsMs } : {}),
    });
    pause = { session, compactAt: timing?.choice === 'compact-before-expiry' ? context.at + (timing.compactAtMs ?? 0) : null };
    return calls();
  };
  return Object.assign(hook, { pipeline });
}

/** The summariser, noting each call as the LLM summariser would send it (its fork instruction and its fresh prompt). */
function notingCalls(summarizer: Summarizer, note: (call: SummaryCallNote) => void): Summarizer {
  return {
    name: summarizer.name,
    summarize(input) {
      note({
        at: input.now,
        instruction: buildForkInstruction(input, input.parent?.keptMessages ?? 0),
        freshPrompt: freshSummaryText(input),
      });
      return summarizer.summarize(input);
    },
  };
}
