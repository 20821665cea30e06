import type { Capabilities } from '../adapter.js';
import { type OpenAIModelFacts, resolveOpenAIModel } from './models.js';

/**
 * OpenAI caches automatically from 1,024 prompt tokens as long as the prefix is stable, which
 * the adapter guarantees; GPT-5.6 and later also take explicit breakpoints (up to four writes).
 *
 * @example
 * openAIChatCapabilities('gpt-5.6').cachingMode // 'explicit'
 */
export function openAIChatCapabilities(model: string, models?: readonly OpenAIModelFacts[]): Capabilities {
  return openAICapabilities(
    'openai-chat',
    model,
    [
      'usage.prompt_tokens',
      'usage.prompt_tokens_details.cached_tokens',
      'usage.prompt_tokens_details.cache_write_tokens',
      'usage.completion_tokens',
      'usage.completion_tokens_details.reasoning_tokens',
    ],
    models,
  );
}

export function openAICapabilities(
  provider: 'openai-chat' | 'openai-responses',
  model: string,
  usageFields: readonly string[],
  models?: readonly OpenAIModelFacts[],
): Capabilities {
  const facts = resolveOpenAIModel(model, models);
  return {
    provider,
    promptCaching: true,
    cachingMode: facts.explicitBreakpoints ? 'explicit' : 'automatic',
    maxBreakpoints: facts.explicitBreakpoints ? 4 : 0,
    ttlOptions: facts.retention,
    minimumPrefixTokens: facts.minimumPrefixTokens,
    usageFields,
    source: `${facts.source} (${facts.family}, checked ${facts.checked})`,
  };
}
