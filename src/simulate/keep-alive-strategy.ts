import { findPrice } from '../cache/pricing.js';
import type { EventBus } from '../events/event-bus.js';
import type { ProviderId } from '../providers/adapter.js';
import type { Workload } from '../workloads/workload.js';
import { harnessStrategy } from './harness-strategy.js';
import { peerStrategy } from './peer-strategy.js';
import type { IdleContext, KeepAliveSchedule, StrategyDriver, StrategyName } from './strategy.js';

/** The harness designs that ping: `pi-warming` (pi's idle warming) and `aider-keepalive` (Aider's pings). */
export type KeepAliveDesign = 'pi-warming' | 'aider-keepalive';

/**
 * The strategy each pinging design runs between its pings: the same layout, request for request.
 * A run of the design in which no ping is sent is therefore its base strategy's run.
 */
export const KEEP_ALIVE_BASE: Readonly<Record<KeepAliveDesign, StrategyName>> = {
  'pi-warming': 'pi',
  'aider-keepalive': 'markers',
};

const MINUTE = 60_000;

/**
 * pi's `CacheWarmer` (pi 0.86+, `cacheWarming: "idle"`; earendil-works/pi
 * packages/coding-agent/src/core/cache-warmer.ts at 4f473d2, read 2026-11-27): a refresh at
 * min(90% of the TTL, TTL − 10 s) after the last real request and after each refresh; each one
 * sent only when `p × (write − read) × prompt − (read × prompt + one output token)` is at least
 * $0.05, with `p` = 1 while the agent run is active (tools running) and 0.15 once it settled
 * (waiting for the user); no refresh past 60 minutes (active) or 30 minutes (idle) after the real request.
 */
export const PI_WARMING = {
  ttlMs: 5 * MINUTE,
  minimumExpectedSavingsUsd: 0.05,
  idleContinuationProbability: 0.15,
  activeHorizonMs: 60 * MINUTE,
  idleHorizonMs: 30 * MINUTE,
} as const;

/**
 * Aider's `--cache-keepalive-pings N` (aider.chat/docs/usage/caching.html: "ping every 5
 * minutes … up to N times over a period of N*5 minutes after each message you send"; its
 * `warm_cache` waits 5 × 60 − 5 seconds between pings, each a `max_tokens: 1` request on the
 * cacheable messages). N = 12 here: an hour of pings, a common setting for long pauses.
 */
export const AIDER_KEEPALIVE = { pings: 12, intervalMs: 5 * MINUTE - 5_000 } as const;

/**
 * A harness design that keeps its cache warm with pings: `pi-warming` is the `pi` layout with
 * pi's cost-gated refreshes; `aider-keepalive` is the `markers` layout (a static system prompt
 * and breakpoints on the last messages; Aider itself marks only its system prompt, repo map
 * and files, which would cost it more) with Aider's fixed schedule. Each ping is judged and
 * priced by the simulator like any request.
 */
export function keepAliveStrategy(
  design: KeepAliveDesign,
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus },
): StrategyDriver {
  const base = design === 'pi-warming' ? peerStrategy('pi', workload, context) : harnessStrategy('markers', workload, context);
  const schedule = keepAliveSchedule(design, context.provider, context.model);
  return {
    name: design,
    session: base.session,
    beginTurn: (turn) => base.beginTurn(turn),
    request: (turn, step) => base.request(turn, step),
    endStep: (turn, step) => base.endStep(turn, step),
    keepAliveAfter: schedule,
  };
}

/** When `design` pings after a request: its schedule for one idle period, from what it knows then. */
export function keepAliveSchedule(
  design: KeepAliveDesign,
  provider: ProviderId,
  model: string,
): (idle: IdleContext) => KeepAliveSchedule {
  return design === 'pi-warming' ? piWarmingSchedule(provider, model) : aiderSchedule;
}

function aiderSchedule(idle: IdleContext): KeepAliveSchedule {
  const times = Array.from({ length: AIDER_KEEPALIVE.pings }, (_, index) => idle.at + (index + 1) * AIDER_KEEPALIVE.intervalMs);
  return { times, expectedSavingUsd: null };
}

function piWarmingSchedule(provider: ProviderId, model: string): (idle: IdleContext) => KeepAliveSchedule {
  const price = findPrice(provider, model);
  const ttl = PI_WARMING.ttlMs;
  const delay = Math.max(1, Math.floor(Math.min(ttl * 0.9, ttl - 10_000)));
  return (idle) => {
    const none = { times: [], expectedSavingUsd: null };
    if (!price || idle.promptTokens === 0) return none;
    const perToken = (rate: number) => (rate * idle.promptTokens) / 1e6;
    const hit = perToken(price.cacheReadPerMTok);
    const miss = perToken(price.cacheWrite5mPerMTok > 0 ? price.cacheWrite5mPerMTok : price.inputPerMTok);
    const warm = hit + price.outputPerMTok / 1e6;
    const probability = idle.turnOver ? PI_WARMING.idleContinuationProbability : 1;
    // The economics depend on the last real request only: every refresh of one idle period decides the same.
    const expectedSaving = probability * Math.max(0, miss - hit) - warm;
    if (expectedSaving < PI_WARMING.minimumExpectedSavingsUsd) return none;
    const horizon = idle.turnOver ? PI_WARMING.idleHorizonMs : PI_WARMING.activeHorizonMs;
    const times: number[] = [];
    for (let at = idle.at + delay; at <= idle.at + horizon; at += delay) times.push(at);
    // pi's own figure: the saving it expects of each refresh.
    return { times, expectedSavingUsd: expectedSaving };
  };
}
