export {
  simulateWorkload,
  totalsOf,
  defaultModelFor,
  type SimulateOptions,
  type SimulationResult,
  type SimulatedRequest,
  type SimulationTotals,
  type MissCause,
  type CompactionHook,
} from './simulate-workload.js';
export { STRATEGY_NAMES, isStrategyName, type StrategyName, type StrategyDriver, type BuiltRequest } from './strategy.js';
export { cachetStrategy, type CachetStrategyOptions } from './cachet-strategy.js';
export { harnessStrategy } from './harness-strategy.js';
export { IdealCacheReads, longestCacheLifetimeMs } from './ideal-cache-read.js';
export { adapterFor } from './provider-adapters.js';
