// The run is built by the simulator (the oracle reads it, never a workload); re-exported here
// because `cachet/oracle` is where users look for it. Entry points sit above every room.
export { hindsightRunOf } from '../simulate/hindsight-run-of.js';
export {
  FUTURE_KNOWLEDGE,
  type FutureKnowledge,
  hindsightOracle,
  type OracleRequestDecision,
  type OracleResult,
  type TailScope,
  type ToolDeclaration,
} from './hindsight-oracle.js';
export type { HindsightRequest, HindsightRun, HindsightUnit } from './hindsight-run.js';
export type { OracleRulesOptions } from './oracle-rules.js';
export { type OracleRules, oracleRulesFor } from './oracle-rules.js';
