import type { CacheVerdict } from '../cache/models/cache-verdict.js';
import { createCacheModel } from '../cache/models/create-cache-model.js';
import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import { ValidationError } from '../model/errors.js';
import { assertNever } from '../model/validate.js';
import type { OracleResult } from '../oracle/hindsight-oracle.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { type UserModelRow, withUserModelRows } from '../providers/shared/user-model-rows.js';
import { watchCacheBreaks } from '../runtime/break-watch.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import type { Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { workloadRequests } from '../workloads/workload.js';
import { type CachetStrategyOptions, cachetStrategy } from './cachet-strategy.js';
import { harnessStrategy } from './harness-strategy.js';
import { IdealCacheReads } from './ideal-cache-read.js';
import { IdlePings, type PingProbe, type SentPing } from './idle-pings.js';
import { type JudgedBody, judgeBody, normalizedOf } from './judged-body.js';
import { keepAliveStrategy } from './keep-alive-strategy.js';
import { peerStrategy } from './peer-strategy.js';
import { adapterFor } from './provider-adapters.js';
import { recordJudgedRequest } from './record-judged-request.js';
import { replyFor } from './reply-for.js';
import { type SimulationBaseline, simulationBaseline } from './simulation-baseline.js';
import { type SimulatedPing, type SimulatedRequest, type SimulationTotals, totalsOf } from './simulation-totals.js';
import type { IdleContext, StrategyDriver, StrategyName } from './strategy.js';
import { simulateSubagentCall } from './subagent-call.js';
import { type SimulatedSummary, type SummaryCallInput, simulateSummaryCall } from './summary-call.js';

export type { MissCause } from './miss-cause.js';
export { type SimulatedPing, type SimulatedRequest, type SimulationTotals, totalsOf } from './simulation-totals.js';

export interface SimulationResult {
  workload: string;
  provider: ProviderId;
  model: string;
  strategy: StrategyName;
  /** True when token counts come from an estimator (Anthropic). */
  tokensEstimated: boolean;
  /** False when no price row matched the model (local engines cost nothing per token). */
  priced: boolean;
  requests: SimulatedRequest[];
  /** Keep-alive pings the strategy sent while the session waited (their cost is in `totals`). */
  pings: SimulatedPing[];
  /** With compaction: each summary call, billed as the LLM summariser would send it (its cost is in `totals`). */
  summaries: SimulatedSummary[];
  totals: SimulationTotals;
  /** The hindsight oracle's run, request by request (its decisions explain the regret). */
  oracle: OracleResult;
}

/**
 * Hook for history compaction between requests (the compaction module supplies it for
 * `cachet simulate --compaction`). Called before each request of the `cachet` strategy with the
 * strategy's session; it may rewrite history through `session.rewriteHistory`.
 */
export type CompactionHook = (context: {
  driver: StrategyDriver;
  turn: WorkloadTurn;
  step: WorkloadStep;
  at: number;
  /** Requests left in the workload, this one included (a simulator knows the future). */
  remainingRequests: number;
}) => undefined | { summaryCalls?: readonly SummaryCallInput[] };

export interface SimulateOptions {
  provider?: ProviderId;
  model?: string;
  /**
   * Model rows that override or add models for this run (`loadModelsFile(path).rows`): floors,
   * TTLs and prices every decision, the oracle and the cost report read.
   */
  models?: readonly UserModelRow[];
  strategy?: StrategyName;
  /** Cachet's events (and the harness strategies' request and usage events) go here. */
  bus?: EventBus;
  sessionId?: string;
  /** Extra `session.started` labels (a `run`, a `project`); `source: 'simulation'`, the workload and the oracle's cost are set already. */
  labels?: SessionLabels;
  cachet?: CachetStrategyOptions;
  compaction?: CompactionHook;
  /**
   * The ideal and the oracle to measure against (`simulationBaseline`), when the caller runs
   * several strategies on the same workload, provider and model; computed here otherwise.
   */
  baseline?: SimulationBaseline;
  /**
   * Pinging designs to watch on this run (`PingProbe`): each is told what this strategy's
   * requests left cached, and says afterwards whether it would have sent a ping.
   */
  pingProbes?: readonly PingProbe[];
  /** Called after each request with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Receives each wire body as it is built (for `cachet render`), with, on local engines, the
   * assistant message the engine generated for it (`replyFor`), which its slot keeps.
   */
  onBody?: (body: unknown, request: { turn: number; step: number; reply?: Record<string, unknown> }) => void;
}

/**
 * Run a workload through one strategy on one provider against that provider's cache model.
 * Every request is judged on the workload's clock; costs come from the pricing table; the
 * ideal cache read (the physical limit) is computed once per request from a reference layout,
 * the same for every strategy.
 *
 * @example
 * const result = simulateWorkload(await loadWorkload('coding-agent'), { strategy: 'cachet' });
 * result.totals.efficiency; // ≥ 0.99
 */
export function simulateWorkload(workload: Workload, options: SimulateOptions = {}): SimulationResult {
  return withUserModelRows(options.models, () => runSimulation(workload, options));
}

/** What one run is made of: the provider, model and strategy resolved, the baseline, the driver and the cache model. */
function simulationParts(workload: Workload, options: SimulateOptions) {
  const provider = options.provider ?? workload.provider;
  const model = options.model ?? simulationModel(workload, provider);
  const strategy = options.strategy ?? 'cachet';
  const sessionId = options.sessionId ?? `${workload.name}/${strategy}/${provider}`;
  const baseline = baselineFor(workload, provider, model, options.baseline);
  const context = { provider, model, sessionId, bus: options.bus, labels: simulationLabels(workload, baseline, options.labels) };
  const driver = driverFor(strategy, workload, context, options.cachet);
  const adapter = adapterFor(provider);
  const local = providerEntry(provider).route(model).rules === 'local';
  const counter = sharedCounter(provider, model);
  const cache = createCacheModel(provider, local ? {} : { counter });
  const compactedIdeal = options.compaction ? compactedIdealReads(provider, model, counter, adapter, local) : null;
  const breaks = watchCacheBreaks(driver.session, provider);
  return { provider, model, strategy, baseline, driver, adapter, local, counter, cache, compactedIdeal, breaks };
}

function runSimulation(workload: Workload, options: SimulateOptions): SimulationResult {
  const parts = simulationParts(workload, options);
  const { provider, baseline, driver, adapter, local, counter, cache, compactedIdeal, breaks } = parts;
  const all = workloadRequests(workload);
  const requests: SimulatedRequest[] = [];
  const probes = options.pingProbes ?? [];
  const pings = new IdlePings(cache, provider, (sent) => {
    driver.pinged?.(sent.ping.at);
    publishKeepalive(driver.session, provider, sent);
  });
  // The parent's last request: what a subagent call or a summary forks and what a keep-alive ping refreshes.
  let parent: { body: unknown; judged: JudgedBody; model: string; at: number; prefixTokens: number } | null = null;
  const summaries: SimulatedSummary[] = [];
  let previous: JudgedBody | null = null;
  let priced = true;
  let tokensEstimated = false;

  for (const turn of workload.turns) {
    driver.beginTurn(turn);
    for (const step of turn.steps) {
      pings.sendBefore(step.at, step.subagentTask === null);
      for (const probe of probes) probe.sendBefore(step.at, step.subagentTask === null);
      const referenceIdealTokens = baseline.idealCacheReadTokens[requests.length] ?? 0;
      if (step.subagentTask !== null && parent) {
        requests.push(
          simulateSubagentCall(cache, provider, parent, { turn, step, task: step.subagentTask }, referenceIdealTokens),
        );
        options.onProgress?.(requests.length, all.length);
        continue;
      }
      const rewritesBefore = driver.session.historyRewrites;
      const compacted = options.compaction?.({
        driver,
        turn,
        step,
        at: step.at,
        remainingRequests: all.length - requests.length,
      });
      if (parent && compacted?.summaryCalls) {
        const lastActiveAt = Math.max(parent.at, pings.sent.at(-1)?.at ?? 0);
        const route = { cache, provider, counter, parent, lastActiveAt, ttlMs: SUMMARY_PARENT_TTL_MS };
        summaries.push(...compacted.summaryCalls.map((call) => simulateSummaryCall(call, route)));
      }
      const historyRewritten = driver.session.historyRewrites !== rewritesBefore;
      const built = driver.request(turn, step);
      // Local engines keep the reply they generated in the slot: the next prompt can reuse it.
      const reply = local ? replyFor(adapter, built, step) : undefined;
      options.onBody?.(built.body, { turn: turn.turn, step: step.step, reply });
      // With compaction the physical limit is measured on the compacted requests: the strategy's
      // own persisted zones (its tail left out), so a deliberate rewrite is not counted as a miss.
      const idealTokens = compactedIdeal ? compactedIdeal(built, step) : referenceIdealTokens;
      const { verdict, judged } = judgeBody(cache, provider, built.body, { at: step.at, reply });
      tokensEstimated ||= verdict.tokensEstimated;
      watchJudged(breaks, provider, { judged, verdict, turn, step, historyRewritten });
      const recorded = recordJudgedRequest({
        driver,
        provider,
        adapter,
        counter,
        built,
        verdict,
        turn,
        step,
        idealTokens,
        uncompactedIdealTokens: compactedIdeal ? referenceIdealTokens : null,
        judged,
        previous,
        historyRewritten,
      });
      priced &&= recorded.priced;
      requests.push(recorded.request);
      previous = judged;
      parent = {
        body: built.body,
        judged,
        model: built.canonical.model,
        at: step.at,
        prefixTokens: verdict.cacheReadTokens + verdict.cacheWriteTokens,
      };
      driver.endStep(turn, step);
      const idle = idleContext(turn, step, verdict);
      const { thinking } = built.canonical.params;
      pings.schedule(driver.keepAliveAfter?.(idle) ?? NO_PINGS, { ...parent, turn: turn.turn, step: step.step, thinking });
      for (const probe of probes) probe.schedule(idle, parent.model, thinking);
      options.onProgress?.(requests.length, all.length);
    }
  }
  // The run is over: the session says so (`session.ended`), as a real agent's does; no ping follows.
  driver.session.end();
  const oracle = baseline.oracle;
  return {
    workload: workload.name,
    provider,
    model: parts.model,
    strategy: parts.strategy,
    tokensEstimated,
    priced,
    requests,
    pings: pings.sent,
    summaries,
    totals: totalsOf(requests, oracle, pings.sent, summaries),
    oracle,
  };
}

/** Judged once: the break watch reads the body the cache model normalised (`normalizedOf`). */
function watchJudged(
  breaks: ReturnType<typeof watchCacheBreaks>,
  provider: ProviderId,
  request: { judged: JudgedBody; verdict: CacheVerdict; turn: WorkloadTurn; step: WorkloadStep; historyRewritten: boolean },
): void {
  const { judged, verdict, turn, step, historyRewritten } = request;
  const context = { at: step.at, usage: verdict.usage, turn: turn.turn, step: step.step, historyRewritten };
  breaks.observeNormalized(normalizedOf(judged, provider), context);
}

const NO_PINGS = { times: [], expectedSavingUsd: null };
/** How long the LLM summariser takes the parent's entry to live after its last read (its `parentTtlMs` default). */
const SUMMARY_PARENT_TTL_MS = 300_000;

/** A simulated ping's `cache.keepalive` event on the strategy's session, as `startKeepWarm` publishes a real one. */
function publishKeepalive(session: StrategyDriver['session'], provider: ProviderId, sent: SentPing): void {
  session.bus?.emit('cache.keepalive', session.id, sent.ping.at, {
    provider,
    model: sent.model,
    ping: sent.index,
    prefixTokens: sent.ping.cacheReadTokens + sent.ping.cacheWriteTokens,
    costUsd: sent.ping.costUsd,
    spentUsd: sent.spentUsd,
    expectedSavingUsd: sent.expectedSavingUsd,
    sent: true,
    error: null,
  });
}

/** The session labels of a simulated run (the oracle's cost, where priced, for the overview's regret). */
function simulationLabels(workload: Workload, baseline: SimulationBaseline, extra: SessionLabels | undefined): SessionLabels {
  return {
    source: 'simulation',
    workload: workload.name,
    ...(baseline.oracle.priced ? { oracleCostUsd: baseline.oracle.cost } : {}),
    ...extra,
  };
}

/** What the strategy knows as its session goes idle after `step`. */
function idleContext(turn: WorkloadTurn, step: WorkloadStep, verdict: CacheVerdict): IdleContext {
  return {
    turn,
    step,
    at: step.at,
    promptTokens: verdict.inputTokens,
    cachedTokens: verdict.cacheReadTokens + verdict.cacheWriteTokens,
    turnOver: step.toolResults.length === 0,
  };
}

function driverFor(
  strategy: StrategyName,
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus; labels?: SessionLabels },
  cachet: CachetStrategyOptions | undefined,
): StrategyDriver {
  switch (strategy) {
    case 'cachet':
      return cachetStrategy(workload, { ...context, options: cachet });
    case 'naive':
    case 'markers':
      return harnessStrategy(strategy, workload, context);
    case 'pi':
    case 'ai-sdk':
    case 'langchain':
      return peerStrategy(strategy, workload, context);
    case 'pi-warming':
    case 'aider-keepalive':
      return keepAliveStrategy(strategy, workload, context);
    default:
      return assertNever(strategy);
  }
}

/** The ideal read of each request measured on the strategy's own (compacted) persisted zones. */
function compactedIdealReads(
  provider: ProviderId,
  model: string,
  counter: ReturnType<typeof sharedCounter>,
  adapter: ReturnType<typeof adapterFor>,
  localEngine: boolean,
): (built: { canonical: import('../model/request.js').CanonicalRequest }, step: WorkloadStep) => number {
  const ideal = new IdealCacheReads(provider, model, counter);
  const local = localEngine ? createCacheModel(provider) : null;
  return (built, step) => {
    const persisted = { ...built.canonical, tail: { items: [], inToolLoop: built.canonical.tail.inToolLoop } };
    const body = adapter.convertRequest(persisted, providerEntry(provider).planOptions({ padding: 'never' })).body;
    return local
      ? local.judge(body, { at: step.at, reply: replyFor(adapter, { canonical: persisted }, step) }).cacheReadTokens
      : ideal.next(body, step.at);
  };
}

/** The model a workload runs on a provider: its own on its provider, else `defaultModelFor`'s counterpart. */
export function simulationModel(workload: Pick<Workload, 'provider' | 'model'>, provider: ProviderId): string {
  return provider === workload.provider ? workload.model : defaultModelFor(provider, workload.model);
}

/** A provider's counterpart of the workload's model when the CLI switches providers. */
export function defaultModelFor(provider: ProviderId, workloadModel: string): string {
  return providerEntry(provider).counterpartModel(workloadModel);
}

/** The caller's baseline when it was measured on this workload's provider and model; else a new one. */
function baselineFor(
  workload: Workload,
  provider: ProviderId,
  model: string,
  given: SimulationBaseline | undefined,
): SimulationBaseline {
  if (!given) return simulationBaseline(workload, provider, model);
  if (given.provider !== provider || given.model !== model) {
    throw new ValidationError(
      'baseline',
      `a baseline of ${provider} ${model}`,
      `one measured on ${given.provider} ${given.model}`,
    );
  }
  if (given.idealCacheReadTokens.length !== workloadRequests(workload).length) {
    throw new ValidationError(
      'baseline',
      `${workloadRequests(workload).length} requests`,
      `${given.idealCacheReadTokens.length}`,
    );
  }
  return given;
}
