import { assertNever } from '../../model/validate.js';
import type { ProviderId } from '../../providers/adapter.js';
import type { ProviderEntry } from '../../providers/provider-entry.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { CacheRules } from '../wire/cache-rules.js';
import { modelOf } from '../wire/json-helpers.js';
import { type AnthropicCacheModelOptions, createAnthropicCacheModel, forkedAnthropicOptions } from './anthropic-cache-model.js';
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
  const create = (rules: CacheRules, anthropic?: AnthropicCacheModelOptions): CacheModel => {
    switch (rules) {
      case 'anthropic':
        return createAnthropicCacheModel({ ...counter, ...anthropic });
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
  return modelPerRules(entry, create, { models: new Map(), index: 0, anthropic: options.anthropic });
}

/** One model per rule set, created on first use by `create`; the verdict index counts every body. */
function modelPerRules(
  entry: ProviderEntry,
  create: (rules: CacheRules, anthropic?: AnthropicCacheModelOptions) => CacheModel,
  state: { models: Map<CacheRules, CacheModel>; index: number; anthropic?: AnthropicCacheModelOptions },
): CacheModel {
  let { models, index } = state;
  return {
    rules: entry.route('').rules,
    judge(body: unknown, context: JudgeContext): CacheVerdict {
      const rules = entry.route(modelOf(body)).rules;
      let model = models.get(rules);
      if (!model) {
        model = create(rules, state.anthropic);
        models.set(rules, model);
      }
      return { ...model.judge(body, context), index: index++ };
    },
    reset() {
      models = new Map();
      index = 0;
    },
    fork(forkOptions = {}) {
      const copies = new Map<CacheRules, CacheModel>();
      for (const [rules, model] of models) {
        if (!model.fork) throw new Error(`cannot fork: the ${rules} cache model keeps no copyable state`);
        copies.set(rules, model.fork(forkOptions));
      }
      // Models created later take the fork's memo, never the original's.
      const anthropic = forkedAnthropicOptions(state.anthropic ?? {}, forkOptions);
      return modelPerRules(entry, create, { models: copies, index, anthropic });
    },
  };
}
