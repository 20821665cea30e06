import { assertNever } from '../../model/validate.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { CacheRules } from '../wire/cache-rules.js';
import { modelOf } from '../wire/json-helpers.js';
import { type AnthropicCacheModelOptions, createAnthropicCacheModel } from './anthropic-cache-model.js';
import { type BedrockCacheModelOptions, createBedrockCacheModel } from './bedrock-cache-model.js';
import type { CacheModel, CacheVerdict, JudgeContext } from './cache-verdict.js';
import { createDeepSeekCacheModel, type DeepSeekCacheModelOptions } from './deepseek-cache-model.js';
import { createGeminiCacheModel, type GeminiCacheModelOptions } from './gemini-cache-model.js';
import { createLocalEngineCacheModel, type LocalEngineCacheModelOptions } from './local-engine-cache-model.js';
import { createOpenAICacheModel, type OpenAICacheModelOptions } from './openai-cache-model.js';

export interface CacheModelOptions {
  anthropic?: AnthropicCacheModelOptions;
  openai?: OpenAICacheModelOptions;
  local?: LocalEngineCacheModelOptions;
  bedrock?: BedrockCacheModelOptions;
  gemini?: GeminiCacheModelOptions;
  deepseek?: DeepSeekCacheModelOptions;
  /** Shortcut: the counter for Anthropic, OpenAI and DeepSeek rules (local engines always use their tokenizer). */
  counter?: TokenCounter;
}

/**
 * The cache model that judges bodies of one wire API. Each body is judged by the rules its
 * provider routes its model to (`providerEntry(provider).route(model).rules`): OpenRouter's
 * `anthropic/*` routes by Anthropic's, its other routes by OpenAI-like automatic caching, local
 * engines by their slot. One model per rule set is created on first use; the verdict index
 * counts every body.
 *
 * @example
 * const model = createCacheModel('anthropic');
 * const verdicts = bodies.map((body, i) => model.judge(body, { at: times[i] }));
 */
export function createCacheModel(provider: ProviderId, options: CacheModelOptions = {}): CacheModel {
  const entry = providerEntry(provider);
  const counter = options.counter ? { counter: options.counter } : {};
  const create = (rules: CacheRules): CacheModel => {
    switch (rules) {
      case 'anthropic':
        return createAnthropicCacheModel({ ...counter, ...options.anthropic });
      case 'openai':
        return createOpenAICacheModel({ ...counter, ...options.openai });
      case 'deepseek':
        return createDeepSeekCacheModel({ ...counter, ...options.deepseek });
      case 'local':
        return createLocalEngineCacheModel(options.local);
      default:
        return assertNever(rules);
    }
  };
  // Wire shapes whose bodies need a model of their own (it applies the rules to that shape).
  const ownModel = (): CacheModel | null => {
    const wire = entry.wire;
    switch (wire) {
      case 'bedrock-converse':
        return createBedrockCacheModel({ ...counter, ...options.bedrock });
      case 'gemini-generate-content':
        return createGeminiCacheModel({ ...counter, ...options.gemini });
      case 'anthropic-messages':
      case 'chat-completions':
      case 'responses':
        return null;
      default:
        return assertNever(wire);
    }
  };
  const own = ownModel();
  if (own) return own;
  let models = new Map<CacheRules, CacheModel>();
  let index = 0;
  return {
    rules: entry.route('').rules,
    judge(body: unknown, context: JudgeContext): CacheVerdict {
      const rules = entry.route(modelOf(body)).rules;
      let model = models.get(rules);
      if (!model) {
        model = create(rules);
        models.set(rules, model);
      }
      return { ...model.judge(body, context), index: index++ };
    },
    reset() {
      models = new Map();
      index = 0;
    },
  };
}
