import { ValidationError } from '../../model/errors.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { ConversionMetadata } from '../../providers/adapter.js';
import { type AnthropicConversionMetadata, convertToAnthropic } from '../../providers/anthropic/convert-request.js';
import type { AnthropicOptions } from '../../providers/anthropic/options.js';
import { convertToOpenAIChat, type OpenAIRequestOptions } from '../../providers/openai-chat/convert-request.js';
import type { AiSdkCall } from './ai-sdk-types.js';
import { anthropicBodyToAiSdk } from './anthropic-body-to-ai-sdk.js';
import { openAIBodyToAiSdk } from './openai-body-to-ai-sdk.js';

/** Options for the Anthropic layout: the Anthropic adapter's options (`ttl`, `previous`, `breakpoints`...). */
export type AnthropicAiSdkOptions = { provider: 'anthropic' } & AnthropicOptions;
/** Options for the OpenAI layout: the OpenAI adapters' options (`promptCacheKey`, `promptCacheRetention`...). */
export type OpenAIAiSdkOptions = { provider: 'openai' } & OpenAIRequestOptions;
/** Which AI SDK provider the call is for, with the options of the Cachet adapter that decides the layout. */
export type AiSdkCallOptions = AnthropicAiSdkOptions | OpenAIAiSdkOptions;

export interface AnthropicAiSdkConversion {
  provider: 'anthropic';
  call: AiSdkCall;
  metadata: AnthropicConversionMetadata;
}
export interface OpenAIAiSdkConversion {
  provider: 'openai';
  call: AiSdkCall;
  metadata: ConversionMetadata;
}
export type AiSdkConversion = AnthropicAiSdkConversion | OpenAIAiSdkConversion;

/**
 * Convert a canonical request with Cachet's own adapter (`anthropicAdapter.convertRequest` or
 * `convertToOpenAIChat`) and rewrite the wire body as AI SDK call options, keeping the adapter's
 * decisions: block order, breakpoints (`providerOptions.anthropic.cacheControl` on the parts that
 * carry them), turn-tail placement and `prompt_cache_key`. `metadata` is the adapter's (pass
 * `metadata.cacheState` back as `previous` on the next Anthropic request).
 *
 * @example
 * const { call, metadata } = convertForAiSdk(assemble(session), { provider: 'anthropic', previous });
 * const result = await generateText({ model: anthropic('claude-sonnet-5'), ...call });
 * previous = metadata.cacheState;
 */
export function convertForAiSdk(request: CanonicalRequest, options: AnthropicAiSdkOptions): AnthropicAiSdkConversion;
export function convertForAiSdk(request: CanonicalRequest, options: OpenAIAiSdkOptions): OpenAIAiSdkConversion;
export function convertForAiSdk(request: CanonicalRequest, options: AiSdkCallOptions): AiSdkConversion;
export function convertForAiSdk(request: CanonicalRequest, options: AiSdkCallOptions): AiSdkConversion {
  switch (options.provider) {
    case 'anthropic': {
      const { provider, ...adapterOptions } = options;
      const { body, metadata } = convertToAnthropic(request, adapterOptions);
      return { provider, call: anthropicBodyToAiSdk(body), metadata };
    }
    case 'openai': {
      const { provider, ...adapterOptions } = options;
      const { body, metadata } = convertToOpenAIChat(request, adapterOptions);
      return { provider, call: openAIBodyToAiSdk(body), metadata };
    }
    default: {
      const provider = (options as { provider?: unknown }).provider;
      throw new ValidationError('options.provider', '"anthropic" or "openai"', `got ${JSON.stringify(provider)}`);
    }
  }
}

/**
 * `generateText` / `streamText` options for a canonical request, laid out by Cachet's adapter for
 * `options.provider`. Spread it into the call beside `model`.
 *
 * @example
 * const result = await generateText({
 *   model: anthropic('claude-sonnet-5'),
 *   ...toAiSdkCall(assemble(session), { provider: 'anthropic', ttl: { global: '1h' } }),
 * });
 */
export function toAiSdkCall(request: CanonicalRequest, options: AiSdkCallOptions): AiSdkCall {
  return convertForAiSdk(request, options).call;
}
