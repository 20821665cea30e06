export {
  prepareRequest,
  zoneTokensOf,
  sharedCounter,
  type PrepareRequestOptions,
  type PreparedRequest,
} from './prepare-request.js';
export { recordUsage, type RecordUsageOptions, type RequestCost, type PriceUsage } from './record-usage.js';
export { watchCacheBreaks } from './break-watch.js';
export { chooseHistoryTtl, type TtlChoice, type TtlPolicyInput } from './ttl-policy.js';
