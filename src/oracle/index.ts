export {
  FUTURE_KNOWLEDGE,
  type FutureKnowledge,
  hindsightOracle,
  type OracleRequestDecision,
  type OracleResult,
  type TailScope,
  type ToolDeclaration,
} from './hindsight-oracle.js';
export { type HindsightRequest, type HindsightRun, type HindsightUnit, hindsightRunOf } from './hindsight-run.js';
export { type OracleRules, oracleRulesFor } from './oracle-rules.js';
