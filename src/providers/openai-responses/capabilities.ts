import type { Capabilities } from '../adapter.js';
import { openAICapabilities } from '../openai-chat/capabilities.js';
import type { OpenAIModelFacts } from '../openai-chat/models.js';

/**
 * Same caching rules as Chat Completions (one OpenAI cache behind both APIs).
 *
 * @example
 * openAIResponsesCapabilities('gpt-5.2').cachingMode // 'automatic'
 */
export function openAIResponsesCapabilities(model: string, models?: readonly OpenAIModelFacts[]): Capabilities {
  return openAICapabilities(
    'openai-responses',
    model,
    [
      'usage.input_tokens',
      'usage.input_tokens_details.cached_tokens',
      'usage.input_tokens_details.cache_write_tokens',
      'usage.output_tokens',
      'usage.output_tokens_details.reasoning_tokens',
    ],
    models,
  );
}
