import { matchModelRow } from '../model/match-model.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry, registeredPrices } from '../providers/registry.js';
import type { PriceRow } from '../providers/shared/price-row.js';
import { userPriceRows } from '../providers/shared/user-model-rows.js';
import { genaiPriceRow } from './genai-prices-fallback.js';

export type { PriceRow } from '../providers/shared/price-row.js';

/**
 * The built-in price table: every registered provider's own rows (`src/providers/<name>/prices.ts`).
 * Providers change prices: pass your own rows to `costOf` (they win over these) rather than
 * editing code.
 */
export const PRICES: readonly PriceRow[] = registeredPrices();

/**
 * The price row for a model on a wire API: caller rows first, then the active models-file rows,
 * then the built-in table, in the
 * price list the provider's route names (`providerEntry(provider).route(model).priceVendor`:
 * OpenRouter's `anthropic/claude-sonnet-4.5` is looked up as `claude-sonnet-4-5` in Anthropic's
 * list). Ids match by `matchModelRow`'s rule at `release` strength, the longest id winning: a
 * dated or tagged id (`claude-sonnet-5-5-20261101`, `gpt-5.4-2026-03-05`) takes its model's
 * row, a variant (`gpt-5.5-pro`) does not. A model neither knows is
 * looked up in the bundled genai-prices data (`priceSource: 'genai-prices'`). Local engines and
 * models nobody knows have no row (null).
 *
 * @example
 * findPrice('anthropic', 'claude-haiku-4-5-20251001')?.inputPerMTok; // 1
 */
export function findPrice(provider: ProviderId, model: string, overrides: readonly PriceRow[] = []): PriceRow | null {
  const own = findOwnPrice(provider, model, overrides);
  if (own) return own;
  const route = providerEntry(provider).route(model);
  return route.priceVendor === null ? null : genaiPriceRow(route.priceVendor, route.upstreamModel);
}

/**
 * `findPrice` without the genai-prices fallback: caller rows, the active models-file rows
 * (`--models-file`, `priceSource: 'models-file'`) and Cachet's own table.
 *
 * @example
 * findOwnPrice('openai-chat', 'gpt-4o-mini-2024-07-18')?.model; // 'gpt-4o-mini'
 */
export function findOwnPrice(provider: ProviderId, model: string, overrides: readonly PriceRow[] = []): PriceRow | null {
  const route = providerEntry(provider).route(model);
  if (route.priceVendor === null) return null;
  const vendor = route.priceVendor;
  const ofVendor = (rows: readonly PriceRow[]) => rows.filter((row) => row.vendor === vendor);
  const tables = [ofVendor(overrides), userPriceRows(vendor), ofVendor(PRICES)];
  return matchModelRow(route.upstreamModel, tables, (row) => [row.model], 'release') ?? null;
}
