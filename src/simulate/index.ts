export { type CachetStrategyOptions, cachetStrategy } from './cachet-strategy.js';
export { harnessStrategy } from './harness-strategy.js';
export { hindsightRunOf } from './hindsight-run-of.js';
export { IdealCacheReads, longestCacheLifetimeMs } from './ideal-cache-read.js';
export { AIDER_KEEPALIVE, keepAliveStrategy, PI_WARMING } from './keep-alive-strategy.js';
export { adapterFor } from './provider-adapters.js';
export { replyFor } from './reply-for.js';
export {
  type CompactionHook,
  defaultModelFor,
  type MissCause,
  type SimulatedRequest,
  type SimulateOptions,
  type SimulationResult,
  type SimulationTotals,
  simulateWorkload,
  simulationModel,
  totalsOf,
} from './simulate-workload.js';
export { type SimulationBaseline, simulationBaseline } from './simulation-baseline.js';
export { type BuiltRequest, isStrategyName, STRATEGY_NAMES, type StrategyDriver, type StrategyName } from './strategy.js';
export { withSkillLoadResults, workloadSkillStore } from './workload-skills.js';
