/**
 * Every model row Cachet knows, as one catalog: the provider's caching facts (floor, TTL options,
 * which request parameters are in the cache key) beside the model's prices and cache
 * multipliers, with where each came from and when it was checked. `cachet models` prints it.
 */
import { resolveAnthropicModel } from '../providers/anthropic/models.js';
import { PROVIDER_IDS, type ProviderId, providerEntry } from '../providers/registry.js';
import { cacheMultipliersOf, type PriceRow } from '../providers/shared/price-row.js';

/** Rows checked longer ago than this are flagged stale. */
export const STALE_AFTER_DAYS = 180;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ModelCatalogRow {
  provider: ProviderId;
  model: string;
  /** Smallest prefix the provider caches for this model (0 when unknown). */
  floorTokens: number;
  ttlOptions: readonly string[];
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  cacheWrite5mPerMTok: number;
  cacheWrite1hPerMTok: number;
  /** Multipliers on the input rate: what the TTL, padding and tail decisions weigh. */
  multipliers: { write5m: number; write1h: number; read: number };
  /** A second band for long prompts (threshold in prompt tokens), or null. */
  longPromptThresholdTokens: number | null;
  /** Request parameters in the cache key, where the model's table says (Claude rules); null elsewhere. */
  cacheKeyParams: readonly string[] | null;
  priceSource: 'cachet' | 'genai-prices';
  source: string;
  checked: string;
  /** True when `checked` is more than `STALE_AFTER_DAYS` before `today`. */
  stale: boolean;
}

function isStale(checked: string, today: Date): boolean {
  const at = Date.parse(checked);
  return Number.isFinite(at) && today.getTime() - at > STALE_AFTER_DAYS * DAY_MS;
}

function catalogRow(provider: ProviderId, price: PriceRow, today: Date): ModelCatalogRow {
  const entry = providerEntry(provider);
  const capabilities = entry.adapter.capabilities(price.model);
  const route = entry.route(price.model);
  const multipliers = cacheMultipliersOf(price);
  return {
    provider,
    model: price.model,
    floorTokens: capabilities.minimumPrefixTokens,
    ttlOptions: capabilities.ttlOptions,
    inputPerMTok: price.inputPerMTok,
    outputPerMTok: price.outputPerMTok,
    cacheReadPerMTok: price.cacheReadPerMTok,
    cacheWrite5mPerMTok: price.cacheWrite5mPerMTok,
    cacheWrite1hPerMTok: price.cacheWrite1hPerMTok,
    multipliers,
    longPromptThresholdTokens: price.longPrompt?.thresholdTokens ?? null,
    cacheKeyParams: route.rules === 'anthropic' ? resolveAnthropicModel(route.upstreamModel).cacheKeyParams : null,
    priceSource: price.priceSource ?? 'cachet',
    source: price.source,
    checked: price.checked,
    stale: isStale(price.checked, today),
  };
}

/**
 * The catalog: one row per price row of each provider (OpenAI's list appears once, under
 * `openai-chat`; Claude on Bedrock and OpenRouter reads the Anthropic rows). Models no row
 * knows are priced from the genai-prices data at run time and are not listed.
 *
 * @example
 * modelCatalog({ provider: 'anthropic' }).find((row) => row.model === 'claude-fable-5-1')?.multipliers.read; // 0.025
 */
export function modelCatalog(options: { provider?: ProviderId; today?: Date } = {}): ModelCatalogRow[] {
  const today = options.today ?? new Date();
  const seen = new Set<PriceRow>();
  const rows: ModelCatalogRow[] = [];
  for (const provider of options.provider ? [options.provider] : PROVIDER_IDS) {
    for (const price of providerEntry(provider).prices) {
      if (seen.has(price)) continue;
      seen.add(price);
      rows.push(catalogRow(provider, price, today));
    }
  }
  return rows;
}
