import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import type { ProviderId } from '../providers/adapter.js';
import { KEEP_WARM_DEFAULTS } from '../runtime/plan-keep-warm.js';
import { prewarmingUnsupportedReason } from '../runtime/prewarming.js';
import { cacheMultipliersFor } from '../runtime/tail-pricing.js';
import type { Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { type CachetDecisions, cachetStrategy } from './cachet-strategy.js';
import {
  type ChainRequest,
  type FloorKnowledge,
  OnlineFloor,
  pingIntervalMs,
  type ReplyKind,
  type RequestClass,
} from './online-floor.js';
import { type SimulateOptions, type SimulationResult, simulateWorkload, simulationModel } from './simulate-workload.js';

/** The class of a main-thread request: what its last message is. */
function requestClassOf(turn: WorkloadTurn, step: WorkloadStep): RequestClass {
  const index = turn.steps.indexOf(step);
  if (index === 0) return 'turn-start';
  return turn.steps[index - 1]?.subagentTask !== null ? 'subagent-results' : 'tool-step';
}

/** What the reply to a main-thread request does. */
function replyKindOf(turn: WorkloadTurn, step: WorkloadStep): ReplyKind {
  const next = turn.steps[turn.steps.indexOf(step) + 1];
  if (next?.subagentTask) return 'dispatch';
  return step.toolResults.length === 0 ? 'turn-end' : 'tool-call';
}

/**
 * The workload's main-thread requests as the online floor sees them: each one's persisted prefix
 * on Cachet's layout (a pass of Cachet's own driver, no cache model), class, reply kind, and the
 * gap from the session's last activity after it (it, or its subagent calls) to the next one.
 */
export function floorChain(workload: Workload, provider: ProviderId, model: string): ChainRequest[] {
  const driver = cachetStrategy(workload, { provider, model, sessionId: `${workload.name}/floor-chain` });
  const chain: ChainRequest[] = [];
  let lastActivity: number | null = null;
  for (const turn of workload.turns) {
    driver.beginTurn(turn);
    for (const step of turn.steps) {
      if (step.subagentTask !== null) {
        lastActivity = step.at;
        continue;
      }
      const previous = chain.at(-1);
      if (previous && lastActivity !== null) previous.gapAfterMs = step.at - lastActivity;
      const { zoneTokens } = driver.request(turn, step);
      driver.endStep(turn, step);
      chain.push({
        at: step.at,
        prefixTokens: zoneTokens.global + zoneTokens.session + zoneTokens.history,
        requestClass: requestClassOf(turn, step),
        replyKind: replyKindOf(turn, step),
        gapAfterMs: null,
      });
      lastActivity = step.at;
    }
  }
  driver.session.end();
  return chain;
}

/**
 * The floor's decisions for a Cachet run, made online: before each request it knows whether the
 * previous entry outlived the gap (it has seen the gap) and its own newest 1-hour entry, and when
 * that entry was last read or written.
 */
export function floorDecisions(floor: OnlineFloor, chain: readonly ChainRequest[]): CachetDecisions {
  let longest = -1;
  let longRefreshedAt = 0;
  let last: { index: number; ttl: '5m' | '1h'; pings: number; longPings: number[] } | null = null;
  let expired = true;
  const oneHour = CACHE_LIFETIMES_MS.anthropic1h;
  return {
    ttl(index) {
      const at = (chain[index] as ChainRequest).at;
      if (last && last.index === index - 1) {
        const gap = (chain[last.index] as ChainRequest).gapAfterMs ?? 0;
        const lifetime = (last.ttl === '1h' ? oneHour : CACHE_LIFETIMES_MS.anthropic5m) + last.pings * pingIntervalMs(last.ttl);
        if (last.ttl === '1h') longest = last.index;
        for (const ping of last.longPings) if (ping < at) longRefreshedAt = ping;
        expired = gap > lifetime;
        if (expired && at - longRefreshedAt > oneHour) longest = -1;
      }
      // After a pause the request reads the 1-hour entry, which refreshes it.
      if (expired && longest >= 0) longRefreshedAt = at;
      const ttl = floor.ttlFor(index, longest, expired);
      if (ttl === '1h') longRefreshedAt = at;
      last = { index, ttl, pings: 0, longPings: [] };
      return ttl;
    },
    pingsAfter(index, idle) {
      if (!last || last.index !== index) return { times: [], expectedSavingUsd: null };
      const kept = last.ttl === '1h' ? index : longest;
      const { pings, keepLong } = floor.pingsAfter(index, kept, last.ttl);
      last.pings = pings;
      const interval = pingIntervalMs(last.ttl);
      const times = Array.from({ length: pings }, (_, ping) => idle.at + (ping + 1) * interval);
      if (keepLong && kept >= 0) {
        // Just before each expiry of the 1-hour entry, while the session stays idle.
        const longInterval = pingIntervalMs('1h');
        let next = longRefreshedAt + longInterval;
        while (next <= idle.at) next += longInterval;
        last.longPings = Array.from({ length: KEEP_WARM_DEFAULTS.maxPings }, (_, ping) => next + ping * longInterval);
      }
      const all = [...new Set([...times, ...last.longPings])].sort((left, right) => left - right);
      return { times: all, expectedSavingUsd: null };
    },
  };
}

export interface OnlineFloorRun {
  floor: OnlineFloor;
  result: SimulationResult;
}

/**
 * Solve the online floor for `workload` with `knowledge` and run its decisions through the
 * simulator on Cachet's layout: the cost it reports is the simulator's, with its real pricing.
 */
export function runOnlineFloor(workload: Workload, knowledge: FloorKnowledge, options: SimulateOptions = {}): OnlineFloorRun {
  const provider = options.provider ?? workload.provider;
  const model = options.model ?? simulationModel(workload, provider);
  const chain = floorChain(workload, provider, model);
  const floor = new OnlineFloor({
    chain,
    knowledge,
    pricing: cacheMultipliersFor(provider, model),
    pings: prewarmingUnsupportedReason(provider, model) === null,
  });
  const result = simulateWorkload(workload, {
    ...options,
    provider,
    model,
    strategy: 'cachet',
    sessionId: `${workload.name}/online-floor-${knowledge}/${provider}`,
    cachet: { ...options.cachet, decisions: floorDecisions(floor, chain) },
  });
  return { floor, result };
}

/** A deterministic generator of numbers in [0, 1) (mulberry32), so a resampled run can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The workload with each gap before a main-thread request redrawn from the gaps that followed the
 * workload's requests of the same class and reply kind (the floor's model of the workload's gap
 * distribution); everything else — content, order, subagent calls and their timing relative to
 * the request that dispatched them — is kept. For measuring policies in expectation, not a new target.
 */
export function resampledWorkload(workload: Workload, chain: readonly ChainRequest[], random: () => number): Workload {
  const pools = new Map<string, number[]>();
  for (const request of chain) {
    if (request.gapAfterMs === null) continue;
    const key = `${request.requestClass}/${request.replyKind}`;
    pools.set(key, [...(pools.get(key) ?? []), request.gapAfterMs]);
  }
  let shift = 0;
  let index = -1;
  const turns = workload.turns.map((turn) => {
    const steps = turn.steps.map((step) => {
      if (step.subagentTask === null) {
        const previous = index >= 0 ? chain[index] : undefined;
        if (previous && previous.gapAfterMs !== null) {
          const pool = pools.get(`${previous.requestClass}/${previous.replyKind}`) as number[];
          shift += (pool[Math.floor(random() * pool.length)] as number) - previous.gapAfterMs;
        }
        index += 1;
      }
      return { ...step, at: step.at + shift };
    });
    return { ...turn, at: turn.at + (steps[0] ? steps[0].at - (turn.steps[0]?.at ?? turn.at) : shift), steps };
  });
  return { ...workload, turns };
}
