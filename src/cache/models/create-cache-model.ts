import { assertNever } from '../../model/validate.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { cacheRulesFor } from '../wire/cache-rules.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { type AnthropicCacheModelOptions, createAnthropicCacheModel } from './anthropic-cache-model.js';
import type { CacheModel, CacheVerdict, JudgeContext } from './cache-verdict.js';
import { createLocalEngineCacheModel, type LocalEngineCacheModelOptions } from './local-engine-cache-model.js';
import { createOpenAiCacheModel, type OpenAiCacheModelOptions } from './openai-cache-model.js';

export interface CacheModelOptions {
  anthropic?: AnthropicCacheModelOptions;
  openai?: OpenAiCacheModelOptions;
  local?: LocalEngineCacheModelOptions;
  /** Shortcut: the counter for Anthropic and OpenAI rules (local engines always use their tokenizer). */
  counter?: TokenCounter;
}

/**
 * The cache model that judges bodies of one wire API. OpenRouter bodies are judged per body:
 * Anthropic rules for `anthropic/*` routes, OpenAI-like automatic caching for the others
 * (OpenRouter passes `cache_control` through to Anthropic and caches automatically elsewhere).
 *
 * @example
 * const model = createCacheModel('anthropic');
 * const verdicts = bodies.map((body, i) => model.judge(body, { at: times[i] }));
 */
export function createCacheModel(provider: ProviderId, options: CacheModelOptions = {}): CacheModel {
  const anthropic = () =>
    createAnthropicCacheModel({ ...(options.counter ? { counter: options.counter } : {}), ...options.anthropic });
  const openai = () => createOpenAiCacheModel({ ...(options.counter ? { counter: options.counter } : {}), ...options.openai });
  switch (provider) {
    case 'anthropic':
      return anthropic();
    case 'openai-chat':
    case 'openai-responses':
      return openai();
    case 'openai-compatible':
      return createLocalEngineCacheModel(options.local);
    case 'openrouter':
      return openRouterModel(anthropic, openai);
    default:
      return assertNever(provider);
  }
}

/** One model per rule set, created on first use; the verdict index counts every body. */
function openRouterModel(anthropic: () => CacheModel, openai: () => CacheModel): CacheModel {
  let anthropicModel: CacheModel | null = null;
  let openaiModel: CacheModel | null = null;
  let index = 0;
  return {
    rules: 'openai',
    judge(body: unknown, context: JudgeContext): CacheVerdict {
      const rules = cacheRulesFor(normalizeWireBody(body, 'openrouter'));
      if (rules === 'anthropic') anthropicModel ??= anthropic();
      else openaiModel ??= openai();
      const model = (rules === 'anthropic' ? anthropicModel : openaiModel) as CacheModel;
      return { ...model.judge(body, context), index: index++ };
    },
    reset() {
      anthropicModel = null;
      openaiModel = null;
      index = 0;
    },
  };
}
