export * from './events/index.js';
export * from './injection/index.js';
export * from './model/index.js';
export type { MatchStrength } from './model/match-model.js';
export type {
  Capabilities,
  ConversionMetadata,
  ConversionResult,
  ProviderAdapter,
  ProviderId,
} from './providers/adapter.js';
export type { CacheRules, ModelRoute, PlanInputs, ProviderEntry, WireShape } from './providers/provider-entry.js';
export { isProviderId, PROVIDER_IDS, PROVIDERS, providerEntry } from './providers/registry.js';
export type { DeferredToolPlacement } from './providers/shared/deferred-tool-placement.js';
export type { CacheMultipliers } from './providers/shared/price-row.js';
export * from './runtime/index.js';
export type { LongEntry } from './runtime/ttl-policy.js';
export type { BlockIndex, IndexedZones } from './session/block-index.js';
export * from './session/index.js';
export type { MessageLog } from './session/message-log.js';
export type { CountableItem, RequestTokenCount } from './tokens/index.js';
export { counterForModel, countRequestTokens } from './tokens/index.js';
export type { ContentKind, TokenCounter } from './tokens/token-counter.js';
