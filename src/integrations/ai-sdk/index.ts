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
