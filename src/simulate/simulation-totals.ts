import type { OracleResult } from '../oracle/hindsight-oracle.js';
import type { MissCause } from './miss-cause.js';
import type { SimulatedSummary } from './summary-call.js';

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
  /** With compaction: the ideal of the same request had history never been compacted. */
  uncompactedIdealCacheReadTokens?: number;
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
  /** A subagent call (a workload step kind): a fork of the parent's previous request. */
  subagent: boolean;
}

/**
 * A keep-alive ping the strategy sent while the session waited (a pre-warm request on the
 * previous request's exact prefix), judged and priced by the provider's cache model like any
 * request: a read of the live prefix (refreshing its entry), or a write where it had expired.
 */
export interface SimulatedPing {
  /** The request it followed. */
  afterTurn: number;
  afterStep: number;
  at: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface SimulationTotals {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  uncachedTokens: number;
  idealCacheReadTokens: number;
  paddingReadTokens: number;
  /** Requests' cost plus the keep-alive pings' (`pingCostUsd`) and the summary calls' (`summaryCostUsd`). */
  costUsd: number;
  uncachedCostUsd: number;
  /** Keep-alive pings sent and what they cost (included in `costUsd`). */
  pings: number;
  pingCostUsd: number;
  /** With compaction: summary calls made and what their input cost (included in `costUsd`). */
  summaryCalls: number;
  summaryCostUsd: number;
  /** cacheReadTokens / inputTokens. */
  readShare: number;
  /**
   * (cacheReadTokens − paddingReadTokens) / idealCacheReadTokens over the session (1 when the
   * ideal is 0). Padding is content a strategy adds, not workload content, so reading it back
   * does not count toward the physical limit; without padding this is cacheRead / ideal.
   */
  efficiency: number;
  /**
   * With compaction: cacheRead / the ideal of the uncompacted requests (what `efficiency` was
   * before compaction measured against its own requests); null without compaction.
   */
  uncompactedEfficiency: number | null;
  /**
   * The hindsight oracle's cost for the same workload (src/oracle): the best run the provider
   * allows, knowing the whole future. Null when the model has no price (local engines: see
   * `oracleProcessedTokens`).
   */
  oracleCostUsd: number | null;
  /** Tokens the oracle's run processes without reuse (input − read): the local engines' measure. */
  oracleProcessedTokens: number;
  /**
   * cost ÷ oracle − 1 (processed tokens for unpriced models): 0 means the best possible run.
   * Negative only with `--compaction`, which rewrites history the oracle keeps.
   */
  regret: number | null;
}

export function totalsOf(
  requests: readonly SimulatedRequest[],
  oracle: OracleResult | null = null,
  pings: readonly SimulatedPing[] = [],
  summaries: readonly SimulatedSummary[] = [],
): SimulationTotals {
  const pingCostUsd = pings.reduce((total, ping) => total + ping.costUsd, 0);
  const summaryCostUsd = summaries.reduce((total, summary) => total + summary.costUsd, 0);
  const sideCostUsd = pingCostUsd + summaryCostUsd;
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
    costUsd: sum((request) => request.costUsd) + sideCostUsd,
    uncachedCostUsd: sum((request) => request.uncachedCostUsd),
    pings: pings.length,
    pingCostUsd,
    summaryCalls: summaries.length,
    summaryCostUsd,
    readShare: inputTokens === 0 ? 0 : cacheReadTokens / inputTokens,
    efficiency: idealCacheReadTokens === 0 ? 1 : (cacheReadTokens - paddingReadTokens) / idealCacheReadTokens,
    uncompactedEfficiency: uncompactedEfficiencyOf(requests, cacheReadTokens - paddingReadTokens),
    ...regretOf(oracle, sum((request) => request.costUsd) + sideCostUsd, inputTokens - cacheReadTokens),
  };
}

function uncompactedEfficiencyOf(requests: readonly SimulatedRequest[], contentReadTokens: number): number | null {
  if (!requests.some((request) => request.uncompactedIdealCacheReadTokens !== undefined)) return null;
  const ideal = requests.reduce((total, request) => total + (request.uncompactedIdealCacheReadTokens ?? 0), 0);
  return ideal === 0 ? 1 : contentReadTokens / ideal;
}

function regretOf(
  oracle: OracleResult | null,
  costUsd: number,
  processedTokens: number,
): Pick<SimulationTotals, 'oracleCostUsd' | 'oracleProcessedTokens' | 'regret'> {
  if (!oracle) return { oracleCostUsd: null, oracleProcessedTokens: 0, regret: null };
  const [spend, best] = oracle.priced ? [costUsd, oracle.cost] : [processedTokens, oracle.processedTokens];
  return {
    oracleCostUsd: oracle.priced ? oracle.cost : null,
    oracleProcessedTokens: oracle.processedTokens,
    regret: best > 0 ? spend / best - 1 : spend > 0 ? null : 0,
  };
}
