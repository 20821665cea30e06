import type { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import type { ProviderId } from '../providers/adapter.js';
import type { PaddingMode } from '../providers/anthropic/padding.js';
import { providerEntry } from '../providers/registry.js';
import { prepareRequest, sharedCounter } from '../runtime/prepare-request.js';
import { chooseHistoryTtl } from '../runtime/ttl-policy.js';
import { Session } from '../session/session.js';
import { ActivationBudget } from '../skills/activation-budget.js';
import { SkillTools } from '../skills/skill-tools.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { type Workload, type WorkloadStep, type WorkloadTurn, workloadRequests } from '../workloads/workload.js';
import { adapterFor } from './provider-adapters.js';
import type { BuiltRequest, StrategyDriver } from './strategy.js';
import {
  sessionStaticText,
  skillIndexText,
  tailItems,
  toolGuidanceText,
  toolResultMessage,
  userMessage,
  workingMemoryPair,
} from './workload-content.js';
import { withSkillLoadResults, workloadSkillStore } from './workload-skills.js';

export interface CachetStrategyOptions {
  /** `auto` [default]: Cachet's TTL choice (`chooseHistoryTtl`); or a fixed TTL for comparisons. */
  ttl?: 'auto' | '5m' | '1h';
  /** Minimum-prefix padding; `auto` [default] decides by cost. */
  padding?: PaddingMode;
  /** Gaps between requests of earlier sessions, in ms: the TTL choice's prior (`TtlPolicyInput.priorGapsMs`). */
  priorGapsMs?: readonly number[];
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
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus; options?: CachetStrategyOptions },
): StrategyDriver {
  let now = workload.turns[0]?.at ?? 0;
  const system = [{ label: 'persona', text: workload.persona.trimEnd() }];
  if (workload.guidelines) system.push({ label: 'guidelines', text: workload.guidelines.trimEnd() });
  const index = skillIndexText(workload);
  if (index) system.push({ label: 'skill-index', text: index });
  const project = sessionStaticText(workload);
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
    labels: { provider: context.provider, strategy: 'cachet' },
  });
  const adapter = adapterFor(context.provider);
  const entry = providerEntry(context.provider);
  const counter = sharedCounter(context.provider, context.model);
  const ttlMode = context.options?.ttl ?? 'auto';
  const skillTools = new SkillTools({
    store: workloadSkillStore(workload),
    budget: new ActivationBudget(),
    session,
    tokenCounter: counter,
  });
  // Gaps between this session's requests so far: the TTL policy's evidence.
  const gapsMs: number[] = [];
  let lastRequestAt: number | null = null;
  let previousPrefixTokens = 0;
  // The adapter's state from the previous request (Anthropic: the entries its breakpoints wrote,
  // for the lookback guard, and the padding decision pinned for the whole session).
  let previousState: unknown = null;
  // The padding cost model's horizon and growth: the session length and growth per request a
  // deployment expects. A simulation knows them from the workload, as an operator knows them
  // from the traces of past sessions.
  const expectedRequests = workloadRequests(workload).length;
  const expectedGrowthTokens = averageGrowthTokens(workload, counter, expectedRequests);

  function adapterOptions(ttl: '5m' | '1h'): Record<string, unknown> {
    return entry.planOptions({
      historyTtl: ttl,
      padding: context.options?.padding ?? 'auto',
      expectedRequests,
      expectedGrowthTokens,
      previous: previousState,
      skills: workload.skills.map((skill) => ({ name: skill.name, body: skill.body })),
      tokenCounter: counter,
    });
  }

  return {
    name: 'cachet',
    session,
    beginTurn(turn: WorkloadTurn) {
      now = turn.at;
      session.append(userMessage(turn));
    },
    request(turn: WorkloadTurn, step: WorkloadStep): BuiltRequest {
      now = step.at;
      const tail = tailItems(workload, turn, step.at);
      if (lastRequestAt !== null) gapsMs.push(step.at - lastRequestAt);
      lastRequestAt = step.at;
      let choice: { ttl: '5m' | '1h'; reason: string } = { ttl: '5m', reason: '' };
      const prepared = prepareRequest(session, adapter, {
        turn: turn.turn,
        step: step.step,
        now,
        tail,
        counter,
        // The TTL depends on the persisted prefix's size, known once the request is assembled.
        adapterOptions: ({ zoneTokens }) => {
          const prefixTokens = zoneTokens.global + zoneTokens.session + zoneTokens.history;
          choice =
            ttlMode === 'auto'
              ? chooseHistoryTtl({
                  gapsMs,
                  priorGapsMs: context.options?.priorGapsMs,
                  prefixTokens,
                  newTokens: Math.max(0, prefixTokens - previousPrefixTokens),
                })
              : { ttl: ttlMode, reason: `fixed ${ttlMode} TTL` };
          previousPrefixTokens = prefixTokens;
          return adapterOptions(choice.ttl);
        },
      });
      previousState = (prepared.metadata as { cacheState?: unknown }).cacheState ?? null;
      return {
        body: prepared.body,
        canonical: prepared.request,
        metadata: prepared.metadata,
        zoneTokens: prepared.zoneTokens,
        ttlReason: entry.acceptsHistoryTtl ? `${choice.ttl}: ${choice.reason}` : null,
      };
    },
    endStep(_turn: WorkloadTurn, step: WorkloadStep) {
      session.append({ role: 'assistant', content: step.reply });
      if (step.discoveredTools.length > 0) session.discoverTools(step.discoveredTools.map((tool) => tool.tool));
      const results = toolResultMessage(withSkillLoadResults(step, skillTools), toolGuidanceText(step.discoveredTools));
      if (results) session.append(results);
    },
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
