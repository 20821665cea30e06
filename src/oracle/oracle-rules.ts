import { findPrice } from '../cache/pricing.js';
import { CACHE_LIFETIMES_MS, longestCacheLifetimeMs } from '../cache/wire/cache-rules.js';
import { assertNever } from '../model/validate.js';
import type { ProviderId } from '../providers/adapter.js';
import { resolveAnthropicModel } from '../providers/anthropic/models.js';
import { resolveBedrockModel } from '../providers/bedrock/models.js';
import { resolveGeminiModel } from '../providers/gemini/models.js';
import { resolveOpenAIModel } from '../providers/openai-chat/models.js';
import { type ModelFamilyRow, modelFamilyRow } from '../providers/openai-compatible/models.js';
import { providerEntry } from '../providers/registry.js';
import { prewarmingUnsupportedReason } from '../runtime/prewarming.js';

/**
 * What the provider allows the oracle, and what each token costs. Rates are per token: USD
 * where the model has a price row, else in units of one uncached input token (local engines:
 * 1 per processed token, 0 per reused one).
 */
export interface OracleRules {
  /** `explicit`: entries only where a marker writes them, writes cost a premium (Anthropic). `automatic`: every prompt is cached free (OpenAI). `local`: one slot, prompt and reply (llama.cpp). */
  kind: 'explicit' | 'automatic' | 'local';
  priced: boolean;
  inputRate: number;
  readRate: number;
  write5mRate: number;
  write1hRate: number;
  /** Lifetime of the short TTL, and of the longest one the provider offers. */
  shortTtlMs: number;
  longTtlMs: number;
  minimumTokens: number;
  /** Reads are rounded down to `minimumTokens + k × incrementTokens`. */
  incrementTokens: number;
  /**
   * The local slot's generated reply can be read back by the next prompt. False where the
   * family's template facts say it re-renders replies (Qwen3: generation opens with an empty
   * `<think></think>` block that the template leaves out when it renders the reply as history,
   * so the prompt diverges from the slot at the reply's first token; the local cache model
   * reports it as `template-rerender`). True for Llama 3, Gemma and DeepSeek-V3, whose slots
   * keep replies the next prompt renders byte for byte.
   */
  reusesReply: boolean;
  /**
   * Every layout pays the same wire framing (message headers, chat-template wrappers), so the
   * oracle may count the plainest layout's framing as paid. False for local templates that
   * rewrite tool turns as text or move system messages, where a layout can change its framing:
   * the oracle then counts content only, a looser but still true bound.
   */
  fixedFraming: boolean;
  /** Tools may be declared deferred and appended to history when discovered (Anthropic `defer_loading`). */
  deferredTools: boolean;
  /** Largest prefix the provider caches, in tokens (Nova on Bedrock: 20K); reads and writes stop there. */
  maxCachedTokens: number;
  /**
   * The model accepts a pre-warm request (Anthropic's `max_tokens: 0`), so the oracle may keep
   * entries alive through a pause with pings before they expire, each billed as a read of what
   * it keeps (`prewarmingUnsupportedReason`). Only after a request the runtime could ping, too:
   * none with extended thinking (`prewarmingParamsReason`, checked per request in `oracle-reads.ts`).
   */
  keepAlivePings: boolean;
  /**
   * Whether images are present keys the messages' cache (Anthropic's rules, as its cache model
   * normalises Messages and Bedrock bodies: an `images` unit after tools and system): a request
   * whose images differ from those of the request it reads reads no further than its static prefix.
   */
  imagesKeyMessages: boolean;
  /**
   * An explicit cache the oracle may create besides the automatic one (Gemini `cachedContents`):
   * created at `createRate` per token, stored at `storageRatePerTokenHour` for as long as it is
   * kept, read whole at `readRate` by a request whose prefix starts with it. Null where the
   * provider has none.
   */
  explicitCache: {
    minimumTokens: number;
    createRate: number;
    readRate: number;
    storageRatePerTokenHour: number;
  } | null;
}

const PER_MILLION = 1_000_000;

/** Rows the caller passed to the cache models, which the oracle must honour the same way. */
export interface OracleRulesOptions {
  /** Local model family rows checked before the built-in ones (as `LocalEngineCacheModelOptions.families`). */
  families?: readonly ModelFamilyRow[];
}

/** Which parts of a request the model's prompt holds at all. */
export interface PromptContent {
  /** Tool definitions: not where a local family's template never renders them (DeepSeek-V3, Gemma, old Llama 3). */
  toolDefinitions: boolean;
  /**
   * An assistant turn's tool calls: not on a local engine whose template renders them only for
   * `content: null` (DeepSeek-V3), since llama.cpp's chat layer never passes null
   * (cache/models/llama-cpp-conventions.ts).
   */
  toolCalls: boolean;
}

/**
 * What reaches the prompt, for content the oracle counts: a bound that counted text the engine
 * never sees would not be a lower bound. Everything reaches it except on local template families.
 */
export function promptContentFor(provider: ProviderId, model: string, options: OracleRulesOptions = {}): PromptContent {
  const route = providerEntry(provider).route(model);
  if (route.rules !== 'local') return { toolDefinitions: true, toolCalls: true };
  const template = modelFamilyRow(route.upstreamModel, options.families)?.template;
  return { toolDefinitions: !(template?.ignoresTools ?? false), toolCalls: !(template?.keepsNullContent ?? false) };
}

/** The oracle's rules for a provider and model, from the registry and the tables the cache models and costs use. */
export function oracleRulesFor(provider: ProviderId, model: string, options: OracleRulesOptions = {}): OracleRules {
  const entry = providerEntry(provider);
  const route = entry.route(model);
  const price = findPrice(provider, model);
  const rates = price
    ? {
        priced: true,
        inputRate: price.inputPerMTok / PER_MILLION,
        readRate: price.cacheReadPerMTok / PER_MILLION,
        write5mRate: price.cacheWrite5mPerMTok / PER_MILLION,
        write1hRate: price.cacheWrite1hPerMTok / PER_MILLION,
      }
    : { priced: false, inputRate: 1, readRate: 0.1, write5mRate: 1.25, write1hRate: 2 };
  // Wire APIs whose cache has rules of its own (the cache models that judge them: src/cache/models).
  const wire = entry.wire;
  switch (wire) {
    case 'gemini-generate-content':
      return geminiRules(rates, route.upstreamModel);
    case 'bedrock-converse':
      return bedrockRules(rates, model);
    case 'anthropic-messages':
    case 'chat-completions':
    case 'responses':
      break;
    default:
      return assertNever(wire);
  }
  switch (route.rules) {
    case 'anthropic':
      // Deferred tools (`defer_loading`, tool search, `tool_reference`) exist on Anthropic's own Messages API.
      return {
        ...anthropicRules(rates, route.upstreamModel, entry.wire === 'anthropic-messages'),
        keepAlivePings: prewarmingUnsupportedReason(provider, model) === null,
        // Judged as Messages bodies on Anthropic's own wire only (OpenRouter's Anthropic routes go as Chat Completions).
        imagesKeyMessages: entry.wire === 'anthropic-messages',
      };
    case 'openai':
      return openAIRules(rates, route.upstreamModel);
    case 'deepseek':
      // Automatic and free to write, no minimum; whole-unit matching only lowers what a layout gets, never the bound.
      return {
        ...openAIRules(rates, route.upstreamModel),
        shortTtlMs: longestCacheLifetimeMs('deepseek'),
        longTtlMs: longestCacheLifetimeMs('deepseek'),
        minimumTokens: 0,
        incrementTokens: 1,
        // The end of each request's output is persisted as a unit: the reply is readable next time.
        reusesReply: true,
      };
    case 'local': {
      const family = modelFamilyRow(route.upstreamModel, options.families);
      return {
        kind: 'local',
        priced: false,
        inputRate: 1,
        readRate: 0,
        write5mRate: 1,
        write1hRate: 1,
        shortTtlMs: Number.POSITIVE_INFINITY,
        longTtlMs: Number.POSITIVE_INFINITY,
        minimumTokens: 0,
        incrementTokens: 1,
        // Unknown families (a caller's own template) may read the reply back: the looser bound is the safe one.
        reusesReply: !(family?.template?.rerendersReply ?? false),
        fixedFraming:
          family?.template !== undefined && !family.template.hoistsSystemMessages && family.flags.toolTurns !== 'text',
        deferredTools: false,
        maxCachedTokens: Number.POSITIVE_INFINITY,
        keepAlivePings: false,
        imagesKeyMessages: false,
        explicitCache: null,
      };
    }
    default:
      return assertNever(route.rules);
  }
}

type Rates = Pick<OracleRules, 'priced' | 'inputRate' | 'readRate' | 'write5mRate' | 'write1hRate'>;

function anthropicRules(rates: Rates, model: string, deferredTools: boolean): OracleRules {
  return {
    kind: 'explicit',
    ...rates,
    shortTtlMs: CACHE_LIFETIMES_MS.anthropic5m,
    longTtlMs: CACHE_LIFETIMES_MS.anthropic1h,
    minimumTokens: resolveAnthropicModel(model).effectiveFloorTokens,
    incrementTokens: 1,
    reusesReply: false,
    fixedFraming: true,
    deferredTools,
    maxCachedTokens: Number.POSITIVE_INFINITY,
    keepAlivePings: false,
    imagesKeyMessages: false,
    explicitCache: null,
  };
}

function openAIRules(rates: Rates, model: string): OracleRules {
  return {
    kind: 'automatic',
    ...rates,
    // Automatic caching writes at the input rate: no premium.
    write5mRate: rates.inputRate,
    write1hRate: rates.inputRate,
    // `prompt_cache_retention: "24h"`: same price as in-memory on the models that accept it.
    shortTtlMs: CACHE_LIFETIMES_MS.openAi24h,
    longTtlMs: CACHE_LIFETIMES_MS.openAi24h,
    minimumTokens: resolveOpenAIModel(model).minimumPrefixTokens,
    // OpenAI reads in 1,024 + k × 128-token steps, but where the steps fall depends on the
    // layout (a few more tokens of wording or padding reach the next step): rounding the oracle's
    // own, tighter layout down could cost it a step a looser layout reads, so it is not applied.
    incrementTokens: 1,
    reusesReply: false,
    fixedFraming: true,
    deferredTools: false,
    maxCachedTokens: Number.POSITIVE_INFINITY,
    keepAlivePings: false,
    imagesKeyMessages: false,
    explicitCache: null,
  };
}

/**
 * Gemini, as the Gemini cache model judges it: implicit caching (where the model row has it)
 * reuses any prefix of the previous prompt once it reaches the row's minimum, writes nothing and
 * lives `geminiImplicitIdle` after its last use; an explicit `cachedContents` entry holds a prefix
 * of at least the row's explicit minimum, created at the input rate and stored per token-hour.
 */
function geminiRules(rates: Rates, model: string): OracleRules {
  const row = resolveGeminiModel(model);
  const lifetime = CACHE_LIFETIMES_MS.geminiImplicitIdle;
  const readRate = rates.priced ? rates.readRate : row.readMultiplier;
  return {
    kind: 'automatic',
    ...rates,
    readRate,
    write5mRate: rates.inputRate,
    write1hRate: rates.inputRate,
    shortTtlMs: lifetime,
    longTtlMs: lifetime,
    // Without implicit caching nothing is reused automatically.
    minimumTokens: row.implicitCaching ? row.implicitMinimumTokens : Number.POSITIVE_INFINITY,
    incrementTokens: 1,
    reusesReply: false,
    fixedFraming: true,
    deferredTools: false,
    maxCachedTokens: Number.POSITIVE_INFINITY,
    keepAlivePings: false,
    imagesKeyMessages: false,
    // Storage is priced in USD: without a price row it cannot be weighed against tokens.
    explicitCache: rates.priced
      ? {
          minimumTokens: row.explicitMinimumTokens,
          createRate: rates.inputRate,
          readRate,
          storageRatePerTokenHour: row.storagePerMTokHour / PER_MILLION,
        }
      : null,
  };
}

/**
 * Bedrock, from its own model rows (`resolveBedrockModel`): the checkpoint minimum, the TTLs
 * the model offers there (no 1-hour entry where Bedrock has none), the cap on the cached prefix;
 * prices from the route's price list (Claude at Anthropic's rates, Nova at Amazon's).
 */
function bedrockRules(rates: Rates, model: string): OracleRules {
  const row = resolveBedrockModel(model);
  const shortTtlMs = CACHE_LIFETIMES_MS.anthropic5m;
  return {
    kind: 'explicit',
    ...rates,
    shortTtlMs,
    longTtlMs: row.ttlOptions.includes('1h') ? CACHE_LIFETIMES_MS.anthropic1h : shortTtlMs,
    minimumTokens: row.minimumTokensPerCheckpoint,
    incrementTokens: 1,
    reusesReply: false,
    fixedFraming: true,
    deferredTools: false,
    maxCachedTokens: row.maxCachedPrefixTokens ?? Number.POSITIVE_INFINITY,
    keepAlivePings: prewarmingUnsupportedReason('bedrock', model) === null,
    // The Bedrock cache model judges the Messages body a Converse body stands for.
    imagesKeyMessages: true,
    explicitCache: null,
  };
}
