/**
 * Caching rules of providers whose cache Cachet cannot steer with markers but can feed well,
 * as documented (or plainly marked undocumented). Each row names its source and check date.
 * DeepSeek has a cache model of its own (`createDeepSeekCacheModel`); the others are rows for
 * reports and docs until they get adapters.
 */
export interface AutomaticPrefixProviderRow {
  provider: string;
  /** What a later request must match to hit. */
  hitRule: string;
  /** How to keep a conversation on the server that holds its cache (null: nothing documented). */
  routing: string | null;
  /** Explicit markers the provider also accepts (null: none). */
  explicitMarkers: string | null;
  /** Smallest cached prefix in tokens (null: undocumented). */
  minimumTokens: number | null;
  /** Cached-read price as a multiple of the input price. */
  readMultiplier: number | null;
  /** Write price as a multiple of the input price (1 = no premium). */
  writeMultiplier: number | null;
  /** How long entries live (prose; "undocumented" where the provider says nothing). */
  lifetime: string;
  usageField: string;
  source: string;
  checked: string;
}

export const AUTOMATIC_PREFIX_PROVIDERS: readonly AutomaticPrefixProviderRow[] = [
  {
    provider: 'deepseek',
    hitRule:
      'a whole persisted unit: units end at each request’s input end and output end, at prefixes detected as common to several requests, and at fixed token intervals in long inputs (interval undocumented)',
    routing: null,
    explicitMarkers: null,
    minimumTokens: null,
    readMultiplier: 0.1,
    writeMultiplier: 1,
    lifetime: 'unused units are cleared "usually within a few hours to a few days"',
    usageField: 'usage.prompt_cache_hit_tokens / prompt_cache_miss_tokens',
    source: 'api-docs.deepseek.com/guides/kv_cache; api-docs.deepseek.com/quick_start/pricing',
    checked: '2026-11-23',
  },
  {
    provider: 'xai',
    hitRule: 'the longest byte-identical prefix of a recent request on the same server (eviction any time: no guarantee)',
    routing: 'HTTP header x-grok-conv-id (Chat Completions) or prompt_cache_key (Responses); entries are per server',
    explicitMarkers: null,
    minimumTokens: null,
    readMultiplier: 0.25,
    writeMultiplier: 1,
    lifetime: 'undocumented ("can be evicted at any time due to server load or restarts")',
    usageField: 'usage.prompt_tokens_details.cached_tokens (Responses: usage.input_tokens_details.cached_tokens)',
    source: 'docs.x.ai/developers/advanced-api-usage/prompt-caching (maximizing-cache-hits, best-practices, usage-and-pricing)',
    checked: '2026-11-23',
  },
  {
    provider: 'dashscope',
    hitRule:
      'implicit: common prefix, hits not guaranteed; explicit: cache_control {type:"ephemeral"} markers (at most 4), each searched back up to 20 content blocks, longest match wins',
    routing: null,
    explicitMarkers:
      'cache_control: {"type":"ephemeral"} on message content blocks (OpenAI-compatible, DashScope and Anthropic-compatible APIs)',
    minimumTokens: 1024,
    readMultiplier: 0.1,
    writeMultiplier: 1.25,
    lifetime:
      'explicit: 5 minutes, reset on each hit; implicit: undocumented, unused entries cleared periodically (implicit reads 0.2×, writes 1×)',
    usageField: 'usage.prompt_tokens_details.cached_tokens (and cache_creation_input_tokens for explicit writes)',
    source: 'alibabacloud.com/help/en/model-studio/context-cache (explicit vs implicit table)',
    checked: '2026-11-23',
  },
];
