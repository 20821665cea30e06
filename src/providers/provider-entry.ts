import type { TokenCounter } from '../tokens/token-counter.js';
import type { ProviderAdapter } from './adapter.js';
import type { ProviderId } from './provider-id.js';
import type { PriceRow } from './shared/price-row.js';

/** Which provider's cache rules judge a body (the cache models in src/cache implement each). */
export type CacheRules = 'anthropic' | 'openai' | 'deepseek' | 'local';

/** The shape of a wire body: which normalizer in src/cache/wire reads it. */
export type WireShape = 'anthropic-messages' | 'chat-completions' | 'responses' | 'bedrock-converse' | 'gemini-generate-content';

/** How a model id on one provider is cached and priced. */
export interface ModelRoute {
  rules: CacheRules;
  /** The id in the rules' own model table: OpenRouter's `anthropic/claude-sonnet-4.5` → `claude-sonnet-4-5`. */
  upstreamModel: string;
  /** Whose price list prices it (`PriceRow.vendor`); null when the route is unpriced (local engines, unknown upstreams). */
  priceVendor: string | null;
}

/** A planning decision, in provider-neutral terms, that an adapter's options carry. */
export interface PlanInputs {
  /** TTL of the history breakpoints. */
  historyTtl?: '5m' | '1h';
  padding?: 'auto' | 'always' | 'never';
  expectedRequests?: number;
  expectedGrowthTokens?: number;
  /** The adapter's cache state after the previous request (`metadata.cacheState`), for the lookback guard. */
  previous?: unknown;
  skills?: ReadonlyArray<{ name: string; body: string }>;
  tokenCounter?: TokenCounter;
  /** Where deferred tools go on a provider that cannot defer loading (ignored where it can). */
  deferredToolPlacement?: 'upfront' | 'append';
  /** The tool-search tool sent with deferred tools where loading is deferred natively. */
  toolSearch?: 'regex' | 'bm25' | 'none';
  /**
   * No request is expected after this one: where the adapter places history breakpoints
   * (Anthropic, Bedrock), the history one stays at the previous request's entry, so nothing new is
   * written that nobody would read; ignored elsewhere.
   */
  finalRequest?: boolean;
  /** OpenAI `prompt_cache_retention` asked for this request (a workload turn's `retention`); ignored elsewhere. */
  retention?: 'in_memory' | '24h';
}

/**
 * Everything Cachet knows about one provider, in one place: its adapter, how each model id
 * routes to cache rules and prices, its own price rows, and how planning decisions reach its
 * adapter. Code outside `src/providers/` asks the registry (`providerEntry(id)`) instead of
 * switching on provider ids.
 */
export interface ProviderEntry {
  readonly id: ProviderId;
  readonly wire: WireShape;
  /** The adapter with default options (what the CLI, simulator and proxy use). */
  readonly adapter: ProviderAdapter<unknown, Record<string, unknown>>;
  /** Price rows this provider's own price list contributes (OpenRouter reuses its upstreams'). */
  readonly prices: readonly PriceRow[];
  /** Whether the adapter takes a TTL for history breakpoints (`PlanInputs.historyTtl`). */
  readonly acceptsHistoryTtl: boolean;
  /**
   * Whether the wire defers tool loading natively (Anthropic `defer_loading` + `tool_reference`):
   * deferred definitions stay outside the cached prefix. Elsewhere `PlanInputs.deferredToolPlacement` applies.
   */
  readonly defersToolLoading: boolean;
  /**
   * Later requests send back the reasoning of replies that call tools (DeepSeek requires it);
   * elsewhere earlier reasoning is dropped or sent only with a signature the workload may lack.
   * Absent: false.
   */
  readonly resendsToolTurnReasoning?: boolean;
  /**
   * How a caller (a harness, a peer library) places its own cache markers on this wire:
   * `anthropic-paths` — the adapter's `markers` option (block paths, `cache_control`);
   * `chat-cache-control` — `cache_control` on chat message parts, after conversion;
   * `openai-breakpoints` — explicit `prompt_cache_breakpoint`s the adapter places unless told `breakpoints: 'off'`;
   * `none` — the wire has no markers (automatic caching only).
   */
  readonly callerMarkers: 'anthropic-paths' | 'chat-cache-control' | 'openai-breakpoints' | 'none';
  route(model: string): ModelRoute;
  /** Body fields, beyond the wire shape's own, that shape the cached prefix on this provider. */
  prefixParams(model: string): readonly string[];
  /** This provider's counterpart of a model id from another provider (the CLI's `--provider` switch). */
  counterpartModel(model: string): string;
  /** Adapter options that carry a planning decision to this provider's adapter. */
  planOptions(plan: PlanInputs): Record<string, unknown>;
  /** The chat template family bodies are rendered with, for template-aware break causes. */
  chatTemplate(model: string): 'qwen3' | 'other';
}

/** `PlanInputs` without undefined members, for adapters that take them under the same names. */
export function definedPlan(plan: PlanInputs): Record<string, unknown> {
  return Object.fromEntries(Object.entries(plan).filter(([, value]) => value !== undefined));
}

/**
 * A provider's adapter as its registry entry holds it: the entry is picked at run time, so body
 * and options are typed loosely there (options come from the same entry's `planOptions`). The
 * one place that widens an adapter's types, instead of a double cast in every entry.
 */
export function registryAdapter<Body, Options>(
  adapter: ProviderAdapter<Body, Options>,
): ProviderAdapter<unknown, Record<string, unknown>> {
  return adapter as unknown as ProviderAdapter<unknown, Record<string, unknown>>;
}
