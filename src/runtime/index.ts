export { watchCacheBreaks } from './break-watch.js';
export {
  chooseDeferredToolPlacement,
  type DeferredToolPlacementChoice,
  type DeferredToolPlacementInput,
} from './choose-deferred-tool-placement.js';
export { addGap, type GapSample, type GapTally, tallyGaps } from './gap-tally.js';
export {
  KEEP_WARM_TEXT,
  type KeepWarmHandle,
  type KeepWarmOptions,
  KeepWarmUnsupportedError,
  keepWarmBody,
  startKeepWarm,
} from './keep-warm.js';
export { type KeepWarmAction, type KeepWarmInput, type KeepWarmPlan, planKeepWarm } from './plan-keep-warm.js';
export {
  type PreparedRequest,
  type PrepareRequestOptions,
  prepareRequest,
  sharedCounter,
  zoneTokensOf,
} from './prepare-request.js';
export { assertPrewarming, PREWARMING_WIRES, prewarmingUnsupportedReason } from './prewarming.js';
export { type PriceUsage, pricedBy, type RecordUsageOptions, type RequestCost, recordUsage } from './record-usage.js';
export { type RequestKind, type SessionRhythm, sessionRhythmFromTrace } from './session-rhythm.js';
export {
  type AssembledRequest,
  SessionTtl,
  type SessionTtlOptions,
  type SessionTtlRequestOptions,
} from './session-ttl.js';
export { type GapCounts, joinGaps, SortedGaps } from './sorted-gaps.js';
export { cacheMultipliersFor, tailPricingFor } from './tail-pricing.js';
export {
  chooseHistoryTtl,
  estimateWriteTokens,
  type PreviousPrefix,
  TTL_LIFETIME_MS,
  type TtlChoice,
  type TtlPolicyInput,
  type WriteEstimateInput,
} from './ttl-policy.js';
