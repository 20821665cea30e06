export { watchCacheBreaks } from './break-watch.js';
export {
  type PreparedRequest,
  type PrepareRequestOptions,
  prepareRequest,
  sharedCounter,
  zoneTokensOf,
} from './prepare-request.js';
export { type PriceUsage, pricedBy, type RecordUsageOptions, type RequestCost, recordUsage } from './record-usage.js';
export { tailPricingFor } from './tail-pricing.js';
export { chooseHistoryTtl, type TtlChoice, type TtlPolicyInput } from './ttl-policy.js';
