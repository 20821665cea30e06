import type { Capabilities } from '../adapter.js';
import { type CompatResolution, resolveCompat } from './models.js';

/**
 * Local engines reuse the longest common token prefix (llama.cpp) or full hashed blocks (vLLM
 * 16 tokens, SGLang radix tree) automatically; the adapter keeps the rendered prefix stable per
 * template family, so caching is declared. It depends on sticky routing to one engine and slot,
 * which the cache hints provide only when configured (`slotCount`, `sessionKeyField`).
 *
 * @example
 * openAICompatibleCapabilities('qwen3-8b', { server: 'llama.cpp' }).cachingMode // 'automatic'
 */
export function openAICompatibleCapabilities(model: string, resolution: CompatResolution = {}): Capabilities {
  const compat = resolveCompat(model, resolution);
  return {
    provider: 'openai-compatible',
    promptCaching: true,
    cachingMode: 'automatic',
    maxBreakpoints: 0,
    ttlOptions: [],
    minimumPrefixTokens: 0,
    usageFields: [
      'timings.cache_n',
      'timings.prompt_n',
      'tokens_cached',
      'tokens_evaluated',
      'prompt_eval_count',
      'prompt_eval_cached_count',
      'usage.prompt_tokens_details.cached_tokens',
    ],
    source: `${compat.sources.join('; ')} (family ${compat.family}, server ${compat.server})`,
  };
}
