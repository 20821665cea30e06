import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import type { ProviderId } from '../providers/adapter.js';
import type { PaddingMode } from '../providers/anthropic/padding.js';
import type { PlanInputs } from '../providers/provider-entry.js';
import { providerEntry } from '../providers/registry.js';
import { chooseDeferredToolPlacement } from '../runtime/choose-deferred-tool-placement.js';
import { prepareRequest, sharedCounter } from '../runtime/prepare-request.js';
import type { RequestKind } from '../runtime/session-rhythm.js';
import { SessionTtl } from '../runtime/session-ttl.js';
import { tailPricingFor } from '../runtime/tail-pricing.js';
import { Session } from '../session/session.js';
import { ActivationBudget } from '../skills/activation-budget.js';
import { SkillTools } from '../skills/skill-tools.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type Workload, type WorkloadStep, type WorkloadTurn, workloadRequests } from '../workloads/workload.js';
import { cachetKeepAlive } from './cachet-keep-alive.js';
import { adapterFor } from './provider-adapters.js';
import type { BuiltRequest, IdleContext, KeepAliveSchedule, StrategyDriver } from './strategy.js';
import {
  beginWorkloadTurn,
  sessionStaticText,
  skillIndexText,
  tailItems,
  toolGuidanceText,
  toolResultMessage,
  userMessage,
  userMessageWithGuidance,
  workingMemoryPair,
} from './workload-content.js';
import { withSkillLoadResults, workloadSkillStore } from './workload-skills.js';

export interface CachetStrategyOptions {
  /** `auto` [default]: Cachet's TTL choice (`chooseHistoryTtl`); or a fixed TTL for comparisons. */
  ttl?: 'auto' | '5m' | '1h';
  /** Minimum-prefix padding; `auto` [default] decides by cost. */
  padding?: PaddingMode;
  /**
   * Gaps between requests of earlier sessions, in ms: the TTL choice's prior
   * (`TtlPolicyInput.priorGapsMs`). By default the workload's own rhythm stands in for the
   * deployment's trace store (as its length does for padding); `[]` runs purely online.
   */
  priorGapsMs?: readonly number[];
  /** Tail scope for every tail item: `auto` [default], or a fixed scope for comparisons. */
  tailScope?: 'auto' | 'request' | 'turn';
  /**
   * TTL and keep-warm decisions made by another policy on Cachet's layout, for yardsticks (the
   * online floor, `src/simulate/online-floor.ts`): the history TTL of each of the session's own
   * requests (0-based, subagent calls not counted) and the pings after it [Cachet's own].
   */
  decisions?: CachetDecisions;
}

/** Another policy's TTL and ping decisions for a Cachet run (`CachetStrategyOptions.decisions`). */
export interface CachetDecisions {
  ttl(index: number): '5m' | '1h';
  pingsAfter(index: number, idle: IdleContext): KeepAliveSchedule;
}

/**
 * Cachet's own design: the four zones laid out by `assemble()`, converted by the provider's
 * adapter with its defaults, the history TTL chosen from the session's rhythm (and any
 * `priorGapsMs`), and padding decided by cost over the session length and growth per request
 * the workload implies, with the adapter's cache state passed back on every request.
 * `skill_load` calls run through the real `SkillTools` (the workload's skills, a default
 * `ActivationBudget`, the session's bus and clock), so history holds what Cachet returns and
 * `skill.loaded` / `tool.failed` reach the bus.
 */
export function cachetStrategy(
  workload: Workload,
  context: {
    provider: ProviderId;
    model: string;
    sessionId: string;
    bus?: EventBus;
    labels?: SessionLabels;
    options?: CachetStrategyOptions;
  },
): StrategyDriver {
  let now = workload.turns[0]?.at ?? 0;
  const system = [{ label: 'persona', text: workload.persona.trimEnd() }];
  if (workload.guidelines) system.push({ label: 'guidelines', text: workload.guidelines.trimEnd() });
  const index = skillIndexText(workload);
  if (index) system.push({ label: 'skill-index', text: index });
  const project = sessionStaticText(workload);
  const expectedRequests = workloadRequests(workload).length;
  const counter = sharedCounter(context.provider, context.model);
  const deferredLibrary = deferredLibraryOf(workload);
  const deferredNames = new Set(deferredLibrary.map((entry) => entry.tool.name));
  const deferral = deferralPlan(workload, deferredLibrary, context.provider, context.model, counter, expectedRequests);
  // The workload's own search tool answers with tool references, so no tool-search tool is added.
  const deferralPlanInputs: DeferredPlanInputs = deferral
    ? { toolSearch: 'none', deferredToolPlacement: deferral.placement }
    : {};
  const session = new Session({
    id: context.sessionId,
    model: context.model,
    global: { tools: workload.tools, system },
    sessionStatic: {
      system: project ? [{ label: 'project', text: project }] : [],
      messages: workload.workingMemory ? workingMemoryPair(workload.workingMemory) : [],
    },
    params: { maxTokens: workload.maxTokens },
    bus: context.bus,
    clock: () => now,
    labels: { ...context.labels, provider: context.provider, strategy: 'cachet' },
    ...(deferral ? { deferredTools: deferredLibrary.map((entry) => entry.tool) } : {}),
    // The turn shape a deployment reads from its traces; here the workload's.
    expectations: { stepsPerTurn: expectedRequests / Math.max(1, workload.turns.length), requestsPerSession: expectedRequests },
  });
  const adapter = adapterFor(context.provider);
  const priorGapsMs = context.options?.priorGapsMs ?? workloadGaps(workload);
  const entry = providerEntry(context.provider);
  const ttlMode = context.options?.ttl ?? 'auto';
  const skillTools = new SkillTools({
    store: workloadSkillStore(workload),
    budget: new ActivationBudget(),
    session,
    tokenCounter: counter,
  });
  // The padding cost model's horizon and growth: the session length and growth per request a
  // deployment expects. A simulation knows them from the workload, as an operator knows them
  // from the traces of past sessions.
  const expectedGrowthTokens = averageGrowthTokens(workload, counter, expectedRequests);
  // The library's TTL policy for this session: its gaps by request kind, the workload's as the
  // prior a deployment reads from its traces; Cachet plans keep-warm pings wherever they exist.
  const ttl = new SessionTtl(session, {
    provider: context.provider,
    prior: { gapsMs: priorGapsMs, kindGapsMs: priorKindGaps(workload, context.options?.priorGapsMs !== undefined) },
    keepWarm: true,
    expectedGrowthTokens,
    ttl: ttlMode,
  });
  // Requests after each step, subagent calls included (they read the parent's entry): the
  // session length a deployment expects, as `expectedRequests` is.
  const requestsAfter = new Map(workloadRequests(workload).map(({ step }, index, all) => [step, all.length - index - 1]));
  // The last request's model and history TTL: what a keep-alive ping would refresh.
  let lastWrite: { model: string; ttl: '5m' | '1h' } = { model: context.model, ttl: '5m' };
  const keepAlive = cachetKeepAlive(context.provider, { session: ttl.gapsMs, prior: priorGapsMs });
  // The adapter's state from the previous request (Anthropic: the entries its breakpoints wrote,
  // for the lookback guard, and the padding decision pinned for the whole session).
  let previousState: unknown = null;

  const decisions = context.options?.decisions;
  // Index of the session's last request (subagent calls not counted): what `decisions` are asked about.
  let requestIndex = -1;

  // The current turn's `prompt_cache_retention`, when the workload asks for one.
  let turnRetention: 'in_memory' | '24h' | undefined;
  function adapterOptions(ttl: '5m' | '1h', finalRequest: boolean): Record<string, unknown> {
    return entry.planOptions({
      historyTtl: ttl,
      padding: context.options?.padding ?? 'auto',
      expectedRequests,
      expectedGrowthTokens,
      previous: previousState,
      skills: workload.skills.map((skill) => ({ name: skill.name, body: skill.body })),
      tokenCounter: counter,
      ...deferralPlanInputs,
      ...(turnRetention ? { retention: turnRetention } : {}),
      ...(finalRequest ? { finalRequest } : {}),
    });
  }

  return {
    name: 'cachet',
    session,
    beginTurn(turn: WorkloadTurn) {
      now = turn.at;
      beginWorkloadTurn(session, workload, turn, context.provider);
      turnRetention = turn.params.retention;
      session.append(userMessageWithGuidance(turn));
    },
    request(turn: WorkloadTurn, step: WorkloadStep): BuiltRequest {
      now = step.at;
      requestIndex += 1;
      const tailScope = context.options?.tailScope;
      const tail = tailItems(workload, turn, step.at).map((item) => (tailScope ? { ...item, scope: tailScope } : item));
      let choice: { ttl: '5m' | '1h'; reason: string } = { ttl: '5m', reason: '' };
      const prepared = prepareRequest(session, adapter, {
        turn: turn.turn,
        step: step.step,
        now,
        tail,
        counter,
        // The TTL depends on the persisted prefix's size, known once the request is assembled.
        adapterOptions: (assembled) => {
          const remaining = requestsAfter.get(step) ?? 0;
          const decided = decisions ? { ttl: decisions.ttl(requestIndex) } : {};
          choice = ttl.choose(assembled, { now: step.at, remainingRequests: remaining, ...decided });
          return adapterOptions(choice.ttl, remaining <= 0);
        },
      });
      previousState = (prepared.metadata as { cacheState?: unknown }).cacheState ?? null;
      lastWrite = { model: prepared.request.model, ttl: choice.ttl };
      return {
        body: prepared.body,
        canonical: prepared.request,
        metadata: prepared.metadata,
        zoneTokens: prepared.zoneTokens,
        ttlReason: entry.acceptsHistoryTtl ? `${choice.ttl}: ${choice.reason}` : null,
        ...(deferral ? { deferredTools: deferralPlanInputs } : {}),
      };
    },
    endStep(_turn: WorkloadTurn, step: WorkloadStep) {
      session.append({ role: 'assistant', content: step.reply });
      const found = step.discoveredTools.map((tool) => tool.tool);
      // Deferred tools load through the result that found them; any other is added to `tools`.
      const discovered = deferral ? found.filter((tool) => deferredNames.has(tool.name)) : [];
      const declared = found.filter((tool) => !discovered.includes(tool));
      if (declared.length > 0) session.discoverTools(declared);
      const results = toolResultMessage(withSkillLoadResults(step, skillTools), toolGuidanceText(step.discoveredTools));
      // Deferred tools are loaded by the search result that found them (a tool_reference on Anthropic).
      const last = results?.content.at(-1);
      if (deferral && last?.type === 'tool_result' && discovered.length > 0) {
        last.toolReferences = discovered.map((tool) => tool.name);
      }
      if (results) session.append(results);
    },
    keepAliveAfter: (idle) =>
      decisions ? decisions.pingsAfter(requestIndex, idle) : keepAlive(idle, { ...lastWrite, longEntry: ttl.longEntry }),
    // A ping read the prefix and refreshed its entries: the TTL policy's write estimate starts from it.
    pinged: (at: number) => ttl.pinged(at),
  };
}

/** Tokens the workload's history gains per request on average: user input, replies, tool results. */
function averageGrowthTokens(workload: Workload, counter: TokenCounter, requests: number): number {
  let total = 0;
  const countMessage = (message: Message | null) => {
    for (const block of message?.content ?? []) total += counter.countBlock(block);
  };
  for (const turn of workload.turns) {
    countMessage(userMessage(turn));
    for (const step of turn.steps) {
      countMessage({ role: 'assistant', content: step.reply });
      countMessage(toolResultMessage(step, null));
    }
  }
  return Math.round(total / Math.max(1, requests));
}

type DeferredPlanInputs = Pick<PlanInputs, 'toolSearch' | 'deferredToolPlacement'>;

/**
 * The library tools Cachet declares deferred: those marked `deferLoading: true` when the
 * workload marks any, else the whole library (a workload that marks none leaves it to Cachet).
 */
function deferredLibraryOf(workload: Workload): Workload['toolLibrary'] {
  const marked = workload.toolLibrary.filter((entry) => entry.deferLoading);
  return marked.length > 0 ? marked : workload.toolLibrary;
}

/**
 * The workload's gaps between its own requests (subagent calls left out, as the TTL policy sees
 * them) by the kind of request that preceded each, standing in for a deployment's traces; empty
 * when the caller gave its own prior gaps (or none).
 */
function priorKindGaps(workload: Workload, callerPrior: boolean): Record<RequestKind, number[]> {
  const gaps: Record<RequestKind, number[]> = { 'turn-start': [], 'tool-step': [] };
  if (callerPrior) return gaps;
  let last: { at: number; kind: RequestKind } | null = null;
  for (const turn of workload.turns) {
    for (const step of turn.steps) {
      if (step.subagentTask !== null) continue;
      if (last) gaps[last.kind].push(step.at - last.at);
      last = { at: step.at, kind: step === turn.steps[0] ? 'turn-start' : 'tool-step' };
    }
  }
  return gaps;
}

/** Gaps between consecutive requests of the workload, in ms. */
function workloadGaps(workload: Workload): number[] {
  const times = workload.turns.flatMap((turn) => turn.steps.map((step) => step.at));
  return times.slice(1).map((time, index) => time - (times[index] as number));
}

/**
 * Whether the workload's tool library is declared deferred, and where non-deferring providers
 * put it. Anthropic defers loading natively (`defer_loading`, `tool_reference`); elsewhere the
 * library goes up front or is appended when loaded, whichever `chooseDeferredToolPlacement`
 * expects to cost less over the workload's length and loads.
 */
function deferralPlan(
  workload: Workload,
  library: Workload['toolLibrary'],
  provider: ProviderId,
  model: string,
  counter: TokenCounter,
  expectedRequests: number,
): { placement: 'upfront' | 'append' } | null {
  if (library.length === 0) return null;
  if (providerEntry(provider).defersToolLoading) return { placement: 'append' };
  const inLibrary = new Set(library.map((entry) => entry.tool.name));
  const loads = workload.turns.flatMap((turn) =>
    turn.steps.filter((step) => step.discoveredTools.some((tool) => inLibrary.has(tool.tool.name))),
  );
  const loadedNames = new Set(loads.flatMap((step) => step.discoveredTools.map((tool) => tool.tool.name)));
  const countTool = (tool: Workload['tools'][number]) => counter.countBlock(tool);
  const deferredTokens = library.reduce((sum, entry) => sum + countTool(entry.tool), 0);
  const loadedTokens = library
    .filter((entry) => loadedNames.has(entry.tool.name))
    .reduce((sum, entry) => sum + countTool(entry.tool), 0);
  const staticTokens = workload.tools.reduce((sum, tool) => sum + countTool(tool), 0) + counter.countText(workload.persona);
  const growth = averageGrowthTokens(workload, counter, expectedRequests);
  const pricing = tailPricingFor(provider, model);
  const choice = chooseDeferredToolPlacement({
    deferredTokens,
    loadedTokens,
    expectedLoads: loads.length,
    expectedRequests,
    expectedPrefixTokensAtLoad: staticTokens + (growth * expectedRequests) / 2,
    pricing: { write: pricing.write, read: pricing.read },
  });
  return { placement: choice.placement };
}
