import type { ProviderAdapter } from '../adapter.js';
import { deepSeekCapabilities } from './capabilities.js';
import { convertToDeepSeek, type DeepSeekBody, type DeepSeekOptions } from './convert-request.js';
import { parseDeepSeekUsage } from './parse-usage.js';

/**
 * The DeepSeek adapter: canonical request to a Chat Completions body laid out for DeepSeek's
 * whole-unit disk cache, usage from `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`.
 *
 * @example
 * const { body } = deepSeekAdapter.convertRequest(assemble(session));
 * const completion = await new OpenAI({ baseURL: 'https://api.deepseek.com', apiKey }).chat.completions.create(body);
 * deepSeekAdapter.parseUsage(completion).cacheReadTokens;
 */
export const deepSeekAdapter: ProviderAdapter<DeepSeekBody, DeepSeekOptions> = {
  id: 'deepseek',
  capabilities: (model) => deepSeekCapabilities(model),
  convertRequest: convertToDeepSeek,
  parseUsage: parseDeepSeekUsage,
};

export { deepSeekCapabilities } from './capabilities.js';
export { convertToDeepSeek, type DeepSeekBody, type DeepSeekOptions } from './convert-request.js';
export { DEEPSEEK_MODELS, type DeepSeekModelRow, deepSeekThinks, resolveDeepSeekModel } from './models.js';
export { DEEPSEEK_USAGE_FIELDS, deepSeekUsageSchema, parseDeepSeekUsage } from './parse-usage.js';
export { DEEPSEEK_DIALECT } from './place-breakpoints.js';
export { DEEPSEEK_PRICES } from './prices.js';
