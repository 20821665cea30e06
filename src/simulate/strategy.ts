import type { CanonicalRequest, Zone } from '../model/request.js';
import type { ConversionMetadata } from '../providers/adapter.js';
import type { PlanInputs } from '../providers/provider-entry.js';
import type { Session } from '../session/session.js';
import type { WorkloadStep, WorkloadTurn } from '../workloads/workload.js';

export const STRATEGY_NAMES = [
  'naive',
  'markers',
  'pi',
  'ai-sdk',
  'langchain',
  'pi-warming',
  'aider-keepalive',
  'cachet',
] as const;

/** The strategies that send keep-alive pings while a session waits (besides `cachet`). */
export const KEEP_ALIVE_STRATEGIES = ['pi-warming', 'aider-keepalive'] as const;

/**
 * `naive`: the design the published fixes replaced (system prompt rebuilt every request with
 * everything volatile inside it; one breakpoint on it). `markers`: what common harnesses do
 * today (static system prompt with volatile text appended after it; breakpoints on the system
 * prompt and the last two messages). `cachet`: Session + assemble + the adapter's defaults,
 * with Cachet's TTL choice and padding decision. `pi`, `ai-sdk`, `langchain`: what the main
 * TypeScript libraries give users today (`peerStrategy`, versions in docs/cli.md).
 * `pi-warming`: pi's layout with pi's idle cache warming (`cacheWarming: "idle"`);
 * `aider-keepalive`: the `markers` layout with Aider's `--cache-keepalive-pings` schedule
 * (`keepAliveStrategy`, sources in docs/concepts.md).
 */
export type StrategyName = (typeof STRATEGY_NAMES)[number];

export interface BuiltRequest {
  body: unknown;
  canonical: CanonicalRequest;
  metadata: ConversionMetadata;
  zoneTokens: Record<Zone, number>;
  /** Why the strategy chose its TTL, when it chose one. */
  ttlReason: string | null;
  /** How the strategy laid out deferred tools (adapter option), when the session declares any. */
  deferredTools?: Pick<PlanInputs, 'toolSearch' | 'deferredToolPlacement'>;
}

/** One strategy driving one session through a workload, request by request. */
export interface StrategyDriver {
  readonly name: StrategyName;
  /** The session holding this strategy's history (and, for `cachet`, every zone). */
  readonly session: Session;
  /** The user's input arrives. */
  beginTurn(turn: WorkloadTurn): void;
  /** Build the wire body of the request for `step`. */
  request(turn: WorkloadTurn, step: WorkloadStep): BuiltRequest;
  /** The model replied to `step` (and tools ran): record the reply, results and discoveries. */
  endStep(turn: WorkloadTurn, step: WorkloadStep): void;
  /**
   * After a request: when to send keep-alive pings while the session waits (ms on the workload's
   * clock, ascending). The simulator sends those that fall before the next request and drops the
   * rest (a real scheduler is cancelled when the user comes back). Absent: the strategy never pings.
   */
  keepAliveAfter?(idle: IdleContext): KeepAliveSchedule;
  /** One of the strategy's pings was sent at `at` (its usage said the prefix was read and refreshed). */
  pinged?(at: number): void;
}

/** The pings a strategy plans for one idle period. */
export interface KeepAliveSchedule {
  /** When to send them, ms on the workload's clock, ascending. */
  times: number[];
  /** What the strategy expects them to save against letting the cache expire, USD (null: it does not price them). */
  expectedSavingUsd: number | null;
}

/** What a strategy knows when its session goes idle: nothing about when the next request comes. */
export interface IdleContext {
  turn: WorkloadTurn;
  step: WorkloadStep;
  /** When the request was sent. */
  at: number;
  /** Tokens the request sent in all (input + cache read + cache write): its prompt size. */
  promptTokens: number;
  /** Tokens the request left cached (read + written): what a ping would read. */
  cachedTokens: number;
  /** True when the reply ended the turn (the agent waits for its user); false while tools run. */
  turnOver: boolean;
}

export function isStrategyName(value: string): value is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(value);
}
