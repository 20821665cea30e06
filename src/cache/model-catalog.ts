/**
 * Every model row Cachet knows, as one catalog: the provider's caching facts (floor, TTL options,
 * which request parameters are in the cache key) beside the model's prices and cache
 * multipliers, with where each came from and when it was checked. `cachet models` prints it.
 */
import { resolveAnthropicModel } from '../providers/anthropic/models.js';
import { PROVIDER_IDS, type ProviderId, providerEntry } from '../providers/registry.js';
import { cacheMultipliersOf, type PriceRow, type PriceSource } from '../providers/shared/price-row.js';
import { activeUserModelRows, type UserModelRow, withUserModelRows } from '../providers/shared/user-model-rows.js';
import { findPrice } from './pricing.js';

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
  /** Where the row came from: Cachet's tables, a models file (the whole row), or the genai-prices fallback (prices). */
  priceSource: PriceSource;
  /** The models-file row (`FILE#index`) for rows from a models file; null otherwise. */
  origin: string | null;
  source: string;
  checked: string;
  /** True when `checked` is more than `STALE_AFTER_DAYS` before `today`. */
  stale: boolean;
}

function isStale(checked: string, today: Date): boolean {
  const at = Date.parse(checked);
  return Number.isFinite(at) && today.getTime() - at > STALE_AFTER_DAYS * DAY_MS;
}

function catalogRow(provider: ProviderId, price: PriceRow, today: Date, user: UserModelRow | null = null): ModelCatalogRow {
  const entry = providerEntry(provider);
  const model = user?.model ?? price.model;
  const capabilities = entry.adapter.capabilities(model);
  const route = entry.route(model);
  const multipliers = cacheMultipliersOf(price);
  return {
    provider,
    model,
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
    priceSource: user ? 'models-file' : (price.priceSource ?? 'cachet'),
    origin: user?.origin ?? null,
    source: user?.source ?? price.source,
    checked: user?.checked ?? price.checked,
    stale: isStale(user?.checked ?? price.checked, today),
  };
}

/**
 * The catalog: one row per price row of each provider (OpenAI's list appears once, under
 * `openai-chat`; Claude on Bedrock and OpenRouter reads the Anthropic rows), then the rows of
 * the models file in force (`models`, or `--models-file`), each replacing the built-in row of
 * the same id and marked `priceSource: 'models-file'`. Models no row knows are priced from the
 * genai-prices data at run time and are not listed.
 *
 * @example
 * modelCatalog({ provider: 'anthropic' }).find((row) => row.model === 'claude-fable-5-1')?.multipliers.read; // 0.025
 */
export function modelCatalog(
  options: { provider?: ProviderId; today?: Date; models?: readonly UserModelRow[] } = {},
): ModelCatalogRow[] {
  return withUserModelRows(options.models, () => catalogRows(options.provider, options.today ?? new Date()));
}

function catalogRows(only: ProviderId | undefined, today: Date): ModelCatalogRow[] {
  const user = activeUserModelRows().filter((row) => !only || row.provider === only);
  const replaced = new Set(user.map((row) => `${row.provider}/${row.model.toLowerCase()}`));
  const seen = new Set<PriceRow>();
  const rows: ModelCatalogRow[] = [];
  for (const provider of only ? [only] : PROVIDER_IDS) {
    for (const price of providerEntry(provider).prices) {
      if (seen.has(price) || replaced.has(`${provider}/${price.model.toLowerCase()}`)) continue;
      seen.add(price);
      rows.push(catalogRow(provider, price, today));
    }
  }
  for (const row of user) {
    // A row that sets no prices shows the prices the model is billed at (built-in or fallback).
    const price = row.price ?? findPrice(row.provider, row.model);
    if (price) rows.push(catalogRow(row.provider, price, today, row));
  }
  return rows;
}
