export type { DropInCallInfo, DropInOptions } from '../shared/drop-in-options.js';
export type {
  MiddlewareCallParams,
  MiddlewareModel,
  PromptMessage,
  PromptPart,
  PromptTool,
  ProviderOptionsRecord,
} from '../shared/prompt-view.js';
export type { ScopeDecision, TailContext, TailItemInput, TailValue } from '../shared/turn-tail.js';
export type { AiSdkCall, AiSdkProviderOptions } from './ai-sdk-types.js';
export { anthropicBodyToAiSdk } from './anthropic-body-to-ai-sdk.js';
export {
  type CachetCallInfo,
  type CachetMiddleware,
  type CachetMiddlewareOptions,
  cachetMiddleware,
} from './cachet-middleware.js';
export { messagesFromAiSdk } from './messages-from-ai-sdk.js';
export { openAIBodyToAiSdk } from './openai-body-to-ai-sdk.js';
export {
  type AiSdkCallOptions,
  type AiSdkConversion,
  type AnthropicAiSdkConversion,
  type AnthropicAiSdkOptions,
  convertForAiSdk,
  type OpenAIAiSdkConversion,
  type OpenAIAiSdkOptions,
  toAiSdkCall,
} from './to-ai-sdk-call.js';
export { type AiSdkUsageSource, usageFromAiSdk } from './usage-from-ai-sdk.js';
export { type ModelUsage, usageFromModelResult } from './usage-from-model-result.js';
