export type { PriceRates, PriceSource } from '../providers/shared/price-row.js';
export type { UserRowTtl } from '../providers/shared/user-model-rows.js';
export { installUserModelRows, withUserModelRows } from '../providers/shared/user-model-rows.js';
export type { ForkableBreakDetector } from './break/break-detector.js';
export {
  attachBreakDetector,
  type BreakDetector,
  type BreakDetectorOptions,
  type CacheBreak,
  createBreakDetector,
  type ObserveContext,
} from './break/break-detector.js';
export { clockChangedAt } from './break/clock-pattern.js';
export {
  type CauseAgreement,
  type CauseAgreementSummary,
  compareServerCause,
  SERVER_CAUSE_MATCHES,
  summarizeCauseAgreement,
} from './break/compare-server-cause.js';
export {
  causeSentence,
  type DiffOptions,
  diffNormalized,
  diffWireBodies,
  type WireDiff,
  type WireDiffReport,
  type WireDivergence,
} from './break/diff-wire-bodies.js';
export type { MovedParagraph, VolatileCause, VolatileSplit, VolatileSystemTracker } from './break/volatile-system.js';
export { type Cost, type CostOptions, costOf, type SessionCost, sessionCostOf, uncachedCostOf } from './cost.js';
export { GENAI_PRICES_SOURCE, genaiPriceRow } from './genai-prices-fallback.js';
export { type ModelCatalogRow, modelCatalog, STALE_AFTER_DAYS } from './model-catalog.js';
export { type AnthropicCacheModelOptions, createAnthropicCacheModel } from './models/anthropic-cache-model.js';
export type { BedrockCacheModelOptions } from './models/bedrock-cache-model.js';
export type { CacheModelForkOptions } from './models/cache-verdict.js';
export { type CacheModel, type CacheVerdict, type JudgeContext, judgeSequence } from './models/cache-verdict.js';
export { type CacheModelOptions, createCacheModel } from './models/create-cache-model.js';
export type { DeepSeekCacheModelOptions } from './models/deepseek-cache-model.js';
export type { GeminiCacheModelOptions } from './models/gemini-cache-model.js';
export { type GgufTemplateFacts, readGgufTemplate } from './models/gguf-chat-template.js';
export type { LlamaServerSwaSettings } from './models/llama-cpp-swa.js';
export type { EngineTemplate } from './models/local-engine-cache-model.js';
export {
  ChatTemplateRejectedError,
  createLocalEngineCacheModel,
  type EngineTemplateFacts,
  type LocalEngineCacheModel,
  type LocalEngineCacheModelOptions,
  type LocalEngineVerdict,
  resolveEngineTemplate,
  UnknownChatTemplateError,
} from './models/local-engine-cache-model.js';
export {
  createOpenAICacheModel,
  createOpenAiCacheModel,
  OPENAI_CACHE_INCREMENT,
  type OpenAICacheModelOptions,
  type OpenAiCacheModelOptions,
  roundToIncrement,
} from './models/openai-cache-model.js';
export { loadModelsFile, type ModelsFile, ModelsFileError, parseModelsFile, type UserModelRow } from './models-file.js';
export { findOwnPrice, findPrice, PRICES, type PriceRow } from './pricing.js';
export type { BlockCore, BlockCoreMemo } from './wire/block-core-memo.js';
export {
  CACHE_LIFETIMES_MS,
  type CacheRules,
  cacheHorizon,
  cacheLifetimeMs,
  cacheRulesFor,
  minimumPrefixTokens,
} from './wire/cache-rules.js';
export type { JsonRecord } from './wire/json-helpers.js';
export { detectWireFormat, normalizeWireBody } from './wire/normalize-wire-body.js';
export type { NormalizedWireBody, WireTtl, WireUnit, WireZone } from './wire/wire-unit.js';
