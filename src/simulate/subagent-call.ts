import { costOf, uncachedCostOf } from '../cache/cost.js';
import type { CacheModel, CacheVerdict } from '../cache/models/cache-verdict.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import type { WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { type JudgedBody, judgeBody } from './judged-body.js';
import { missCauseOf } from './miss-cause.js';
import { sideRequestBody } from './side-request-body.js';
import type { SimulatedRequest } from './simulation-totals.js';

/** The cache figures every simulated request reports, from the cache model's verdict. */
export function requestFigures(turn: WorkloadTurn, step: WorkloadStep, verdict: CacheVerdict, idealCacheReadTokens: number) {
  return {
    turn: turn.turn,
    step: step.step,
    at: step.at,
    inputTokens: verdict.inputTokens,
    cacheReadTokens: verdict.cacheReadTokens,
    cacheWriteTokens: verdict.cacheWriteTokens,
    cacheWrite1hTokens: verdict.cacheWrite1hTokens,
    uncachedTokens: verdict.uncachedTokens,
    idealCacheReadTokens,
    paddingReadTokens: 0,
    explanation: verdict.explanation,
  };
}

/**
 * A subagent call of a workload: the parent's last request with the task after its last block
 * (a fork: same bytes, nothing persisted), judged and priced at the parent's model. Its reply
 * never enters the parent's history.
 */
export function simulateSubagentCall(
  cache: CacheModel,
  provider: ProviderId,
  parent: { body: unknown; model: string; judged: JudgedBody },
  call: { turn: WorkloadTurn; step: WorkloadStep; task: string },
  idealCacheReadTokens: number,
): SimulatedRequest {
  const { turn, step, task } = call;
  const body = sideRequestBody(parent.body, providerEntry(provider).wire, task) ?? parent.body;
  const { verdict, judged } = judgeBody(cache, provider, body, { at: step.at });
  return {
    ...requestFigures(turn, step, verdict, idealCacheReadTokens),
    costUsd: costOf(verdict.usage, provider, parent.model).costUsd,
    uncachedCostUsd: uncachedCostOf(verdict.usage, provider, parent.model).costUsd,
    missCause: missCauseOf(verdict, idealCacheReadTokens, parent.judged, judged, provider, false),
    ttlReason: null,
    paddingApplied: null,
    paddingReason: null,
    subagent: true,
  };
}
