export * from './model/index.js';
export * from './session/index.js';
export * from './events/index.js';
export type { TokenCounter, ContentKind } from './tokens/token-counter.js';
export type {
  Capabilities,
  ConversionMetadata,
  ConversionResult,
  ProviderAdapter,
  ProviderId,
} from './providers/adapter.js';
export * from './injection/index.js';
export { countRequestTokens, counterForModel } from './tokens/index.js';
export type { CountableItem, RequestTokenCount } from './tokens/index.js';
