import { diffNormalized } from '../cache/break/diff-wire-bodies.js';
import { costOf, uncachedCostOf } from '../cache/cost.js';
import type { CacheVerdict } from '../cache/models/cache-verdict.js';
import { createCacheModel } from '../cache/models/create-cache-model.js';
import { cacheRulesFor, unitTokens } from '../cache/wire/cache-rules.js';
import { normalizeWireBody } from '../cache/wire/normalize-wire-body.js';
import type { CacheBreakCause } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { watchCacheBreaks } from '../runtime/break-watch.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import { recordUsage } from '../runtime/record-usage.js';
import type { Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { workloadRequests } from '../workloads/workload.js';
import { type CachetStrategyOptions, cachetStrategy } from './cachet-strategy.js';
import { harnessStrategy } from './harness-strategy.js';
import { IdealCacheReads } from './ideal-cache-read.js';
import { adapterFor } from './provider-adapters.js';
import type { StrategyDriver, StrategyName } from './strategy.js';

/** Why a request read less than its ideal: a break cause, or a reason the cache rules give. */
export type MissCause = CacheBreakCause | 'no-breakpoint';

export interface SimulatedRequest {
  turn: number;
  step: number;
  at: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  uncachedTokens: number;
  idealCacheReadTokens: number;
  /**
   * Cache-read tokens that were padding Cachet added to clear the provider's minimum (not
   * workload content): they are not counted toward `efficiency`.
   */
  paddingReadTokens: number;
  costUsd: number;
  uncachedCostUsd: number;
  missCause: MissCause | null;
  explanation: string[];
  ttlReason: string | null;
  paddingApplied: boolean | null;
  /** The adapter's reason for its padding decision (Anthropic), for reports. */
  paddingReason: string | null;
}

export interface SimulationTotals {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  uncachedTokens: number;
  idealCacheReadTokens: number;
  paddingReadTokens: number;
  costUsd: number;
  uncachedCostUsd: number;
  /** cacheReadTokens / inputTokens. */
  readShare: number;
  /**
   * (cacheReadTokens − paddingReadTokens) / idealCacheReadTokens over the session (1 when the
   * ideal is 0). Padding is content a strategy adds, not workload content, so reading it back
   * does not count toward the physical limit; without padding this is cacheRead / ideal.
   */
  efficiency: number;
}

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
  totals: SimulationTotals;
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
}) => void;

export interface SimulateOptions {
  provider?: ProviderId;
  model?: string;
  strategy?: StrategyName;
  /** Cachet's events (and the harness strategies' request and usage events) go here. */
  bus?: EventBus;
  sessionId?: string;
  cachet?: CachetStrategyOptions;
  compaction?: CompactionHook;
  /** Called after each request with the count done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Receives each wire body as it is built (for `cachet render`). */
  onBody?: (body: unknown, request: { turn: number; step: number }) => void;
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
  const provider = options.provider ?? workload.provider;
  const model = options.model ?? simulationModel(workload, provider);
  const strategy = options.strategy ?? 'cachet';
  const sessionId = options.sessionId ?? `${workload.name}/${strategy}/${provider}`;
  const context = { provider, model, sessionId, bus: options.bus };
  const driver =
    strategy === 'cachet'
      ? cachetStrategy(workload, { ...context, options: options.cachet })
      : harnessStrategy(strategy, workload, context);
  // The reference layout for the ideal: Cachet's zones without tail or padding, never on a bus.
  const reference = cachetStrategy(workload, {
    provider,
    model,
    sessionId: `${sessionId}/reference`,
    options: { padding: 'never', ttl: '5m' },
  });
  const adapter = adapterFor(provider);
  const entry = providerEntry(provider);
  const local = entry.route(model).rules === 'local';
  const counter = sharedCounter(provider, model);
  const ideal = new IdealCacheReads(provider, model, counter);
  // Local engines reuse rendered tokens (chat template + tokenizer), so their ideal is measured
  // in the same tokens: the engine's own model judging the reference bodies with their replies.
  const localReference = local ? createCacheModel(provider) : null;
  const cache = createCacheModel(provider, local ? {} : { counter });
  const breaks = watchCacheBreaks(driver.session, provider);
  const all = workloadRequests(workload);
  const requests: SimulatedRequest[] = [];
  let previousBody: unknown = null;
  let priced = true;
  let tokensEstimated = false;

  for (const turn of workload.turns) {
    driver.beginTurn(turn);
    reference.beginTurn(turn);
    for (const step of turn.steps) {
      options.compaction?.({ driver, turn, step, at: step.at, remainingRequests: all.length - requests.length });
      const built = driver.request(turn, step);
      options.onBody?.(built.body, { turn: turn.turn, step: step.step });
      const referenceRequest = reference.request(turn, step);
      const referenceBody = adapter.convertRequest(
        { ...referenceRequest.canonical, tail: { items: [], inToolLoop: referenceRequest.canonical.tail.inToolLoop } },
        entry.planOptions({ padding: 'never' }),
      ).body;
      const idealTokens = localReference
        ? localReference.judge(referenceBody, { at: step.at, reply: replyFor(adapter, referenceRequest, step) }).cacheReadTokens
        : ideal.next(referenceBody, step.at);
      const verdict = cache.judge(built.body, {
        at: step.at,
        reply: local ? replyFor(adapter, built, step) : undefined,
      });
      tokensEstimated ||= verdict.tokensEstimated;
      const paddingReadTokens =
        verdict.cacheReadTokens > 0 && built.metadata.padding?.applied
          ? Math.min(verdict.cacheReadTokens, paddingTokensOf(built, adapter, provider, counter))
          : 0;
      breaks.observe(built.body, { at: step.at, usage: verdict.usage, turn: turn.turn, step: step.step });
      const cost = costOf(verdict.usage, provider, model);
      const uncached = uncachedCostOf(verdict.usage, provider, model);
      priced &&= cost.priced && !cost.free;
      recordUsage(driver.session, verdict.usage, {
        turn: turn.turn,
        step: step.step,
        at: step.at,
        model,
        price: () => ({ costUsd: cost.costUsd, uncachedCostUsd: uncached.costUsd }),
      });
      requests.push({
        turn: turn.turn,
        step: step.step,
        at: step.at,
        inputTokens: verdict.inputTokens,
        cacheReadTokens: verdict.cacheReadTokens,
        cacheWriteTokens: verdict.cacheWriteTokens,
        cacheWrite1hTokens: verdict.cacheWrite1hTokens,
        uncachedTokens: verdict.uncachedTokens,
        idealCacheReadTokens: idealTokens,
        paddingReadTokens,
        costUsd: cost.costUsd,
        uncachedCostUsd: uncached.costUsd,
        missCause: missCauseOf(verdict, idealTokens, previousBody, built.body, provider),
        explanation: verdict.explanation,
        ttlReason: built.ttlReason,
        paddingApplied: built.metadata.padding ? built.metadata.padding.applied : null,
        paddingReason: built.metadata.padding ? built.metadata.padding.reason : null,
      });
      previousBody = built.body;
      driver.endStep(turn, step);
      reference.endStep(turn, step);
      options.onProgress?.(requests.length, all.length);
    }
  }
  return { workload: workload.name, provider, model, strategy, tokensEstimated, priced, requests, totals: totalsOf(requests) };
}

export function totalsOf(requests: readonly SimulatedRequest[]): SimulationTotals {
  const sum = (pick: (request: SimulatedRequest) => number) => requests.reduce((total, request) => total + pick(request), 0);
  const inputTokens = sum((request) => request.inputTokens);
  const cacheReadTokens = sum((request) => request.cacheReadTokens);
  const idealCacheReadTokens = sum((request) => request.idealCacheReadTokens);
  const paddingReadTokens = sum((request) => request.paddingReadTokens);
  return {
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens: sum((request) => request.cacheWriteTokens),
    uncachedTokens: sum((request) => request.uncachedTokens),
    idealCacheReadTokens,
    paddingReadTokens,
    costUsd: sum((request) => request.costUsd),
    uncachedCostUsd: sum((request) => request.uncachedCostUsd),
    readShare: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
    efficiency: idealCacheReadTokens === 0 ? 1 : (cacheReadTokens - paddingReadTokens) / idealCacheReadTokens,
  };
}

/** OpenAI automatic caching reads in 128-token steps: shortfalls below one step are not misses. */
const OPENAI_INCREMENT = 128;
/**
 * On a local engine the tail's message header takes the place of the generation prompt's
 * (`<|im_start|>system` instead of `<|im_start|>assistant`): a few framing tokens, not a miss.
 */
const LOCAL_FRAMING_TOKENS = 8;

function missCauseOf(
  verdict: CacheVerdict,
  idealTokens: number,
  previousBody: unknown,
  body: unknown,
  provider: ProviderId,
): MissCause | null {
  const normalized = normalizeWireBody(body, provider);
  const rules = cacheRulesFor(normalized);
  const shortfall = idealTokens - verdict.cacheReadTokens;
  if (shortfall <= 0 || (rules === 'openai' && shortfall < OPENAI_INCREMENT)) return null;
  if (rules === 'local' && shortfall <= LOCAL_FRAMING_TOKENS) return null;
  if (verdict.missCause) return verdict.missCause;
  if (previousBody !== null) {
    const report = diffNormalized(normalizeWireBody(previousBody, provider), normalized);
    if (report.cause) return report.cause;
  }
  // Nothing changed and nothing expired: the rules only cache what a marker covers.
  return rules === 'anthropic' ? 'no-breakpoint' : 'unknown';
}

/** The reply as the local engine's slot holds it: the assistant message of the next request's body. */
function replyFor(
  adapter: ReturnType<typeof adapterFor>,
  built: { canonical: import('../model/request.js').CanonicalRequest },
  step: WorkloadStep,
) {
  const withReply = {
    ...built.canonical,
    messages: [...built.canonical.messages, { role: 'assistant' as const, content: step.reply }],
    tail: { items: [], inToolLoop: false },
    blocks: [],
  };
  const body = adapter.convertRequest(withReply, {}).body as { messages?: Array<Record<string, unknown>> };
  return body.messages?.at(-1);
}

/** The model a workload runs on a provider: its own on its provider, else `defaultModelFor`'s counterpart. */
export function simulationModel(workload: Pick<Workload, 'provider' | 'model'>, provider: ProviderId): string {
  return provider === workload.provider ? workload.model : defaultModelFor(provider, workload.model);
}

/** A provider's counterpart of the workload's model when the CLI switches providers. */
export function defaultModelFor(provider: ProviderId, workloadModel: string): string {
  return providerEntry(provider).counterpartModel(workloadModel);
}

/**
 * Tokens the adapter's padding adds to a request, in the cache model's counting: the body's
 * tokens minus those of the same request converted without padding. Padding sits inside the
 * first cache entry, so any read of that entry reads all of it.
 */
function paddingTokensOf(
  built: { canonical: import('../model/request.js').CanonicalRequest; body: unknown },
  adapter: ReturnType<typeof adapterFor>,
  provider: ProviderId,
  counter: ReturnType<typeof sharedCounter>,
): number {
  const unpadded = adapter.convertRequest(built.canonical, { padding: 'never' }).body;
  const tokensOf = (body: unknown) =>
    normalizeWireBody(body, provider).units.reduce((total, unit) => total + unitTokens(unit, counter), 0);
  return Math.max(0, tokensOf(built.body) - tokensOf(unpadded));
}
