/**
 * The well-kept price source behind Cachet's own rows: `@pydantic/genai-prices` (Pydantic,
 * MIT), whose bundled data carries input, cache-read, 5-minute and 1-hour cache-write and output
 * prices per model and per provider, tiered and dated prices included. Used only for a model
 * Cachet's own tables do not know, from the data bundled with the installed package: never
 * fetched at run time. Loaded on the first miss, so a run on known models never loads it.
 */
import { createRequire } from 'node:module';
import { releaseStem } from '../model/match-model.js';
import type { PriceRates, PriceRow } from '../providers/shared/price-row.js';

type TieredValue = number | { base: number; tiers: ReadonlyArray<{ start: number; price: number }> } | undefined;
interface GenaiPrices {
  calcPrice(
    usage: Record<string, number>,
    modelId: string,
    options: { providerId: string; timestamp?: Date },
  ): { model: { id: string }; model_price: Record<string, TieredValue> } | null;
}

/** Cachet's price vendors (`ProviderEntry.route().priceVendor`) as genai-prices names its providers. */
const GENAI_PROVIDER: Readonly<Record<string, string>> = { amazon: 'aws' };

export const GENAI_PRICES_SOURCE = '@pydantic/genai-prices (bundled data)';

let loaded: GenaiPrices | null | undefined;
/**
 * The package, or null when it is not installed (a checkout whose node_modules predates the
 * dependency): the fallback is then unavailable and unknown models stay unpriced, as before it.
 */
function genaiPrices(): GenaiPrices | null {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)('@pydantic/genai-prices') as GenaiPrices;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    loaded = null;
  }
  return loaded;
}

/** Whether the genai-prices package is installed (the fallback and the cross-check need it). */
export function genaiPricesAvailable(): boolean {
  return genaiPrices() !== null;
}

function base(value: TieredValue): number | undefined {
  return typeof value === 'number' ? value : value?.base;
}

function firstTier(value: TieredValue): { start: number; price: number } | undefined {
  return typeof value === 'object' ? value.tiers[0] : undefined;
}

/**
 * Whether genai-prices matched a different version of the model (it matches ids by prefix, so
 * `claude-sonnet-5-5` would be priced as `claude-sonnet-5`): a fallback must not price a newer
 * version at an older one's rates.
 */
function matchedAnotherVersion(model: string, matchedId: string): boolean {
  if (!model.startsWith(matchedId)) return false;
  return /^[-.]\d{1,2}(?:\D|$)/.test(model.slice(matchedId.length));
}

function rates(prices: Record<string, TieredValue>, pick: (value: TieredValue) => number | undefined): PriceRates | null {
  const input = pick(prices.input_mtok);
  const output = pick(prices.output_mtok);
  if (input === undefined || output === undefined) return null;
  // Absent cache prices: no discount (read) and no write premium (OpenAI, Gemini, DeepSeek).
  const write5m = pick(prices.cache_write_mtok) ?? input;
  return {
    inputPerMTok: input,
    cacheWrite5mPerMTok: write5m,
    cacheWrite1hPerMTok: pick(prices.cache_write_1h_mtok) ?? write5m,
    cacheReadPerMTok: pick(prices.cache_read_mtok) ?? input,
    outputPerMTok: output,
  };
}

/**
 * The time genai-prices is asked for: noon UTC of today. Its data carries time-of-day prices
 * (DeepSeek's off-peak discount, 16:30–00:30 UTC, halves every rate), and asked without a time
 * it prices at the clock's hour, so the same model got two prices a day and the cross-check
 * failed every evening. Cachet prices at the standard (daytime) rates; dated price changes
 * still apply by day.
 */
function standardPriceTime(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12));
}

const FREE: PriceRates = {
  inputPerMTok: 0,
  cacheWrite5mPerMTok: 0,
  cacheWrite1hPerMTok: 0,
  cacheReadPerMTok: 0,
  outputPerMTok: 0,
};

type GenaiResult = NonNullable<ReturnType<GenaiPrices['calcPrice']>>;

/**
 * genai-prices' model for an id: the id itself, else its release stem (genai-prices names
 * snapshots exactly, so `gpt-5.2-2026-01-15` is found as `gpt-5.2`), never another version.
 */
function genaiMatch(vendor: string, model: string): GenaiResult | null {
  const options = { providerId: GENAI_PROVIDER[vendor] ?? vendor, timestamp: standardPriceTime() };
  for (const id of new Set([model, releaseStem(model)])) {
    const result = genaiPrices()?.calcPrice({ input_tokens: 0 }, id, options) ?? null;
    if (result && !matchedAnotherVersion(id, result.model.id)) return result;
  }
  return null;
}

/**
 * The genai-prices row for a model in one vendor's price list, as a Cachet `PriceRow` marked
 * `priceSource: 'genai-prices'`; null when genai-prices does not know it either (or knows only
 * another version of it). A tiered price becomes the row's `longPrompt` band.
 *
 * @example
 * genaiPriceRow('google', 'gemini-3.5-flash')?.cacheReadPerMTok; // 0.15
 */
export function genaiPriceRow(vendor: string, model: string): PriceRow | null {
  const result = genaiMatch(vendor, model);
  if (!result) return null;
  const prices = result.model_price;
  const known = result.model.id;
  // genai-prices lists a model it knows is free with no prices (Gemma on the Gemini API).
  const baseRates = Object.keys(prices).length === 0 ? FREE : rates(prices, base);
  if (!baseRates) return null;
  const tier = firstTier(prices.input_mtok);
  const longRates = tier ? rates(prices, (value) => firstTier(value)?.price ?? base(value)) : null;
  return {
    vendor,
    model: known,
    ...baseRates,
    ...(tier && longRates ? { longPrompt: { thresholdTokens: tier.start, ...longRates } } : {}),
    priceSource: 'genai-prices',
    source: `${GENAI_PRICES_SOURCE}: ${GENAI_PROVIDER[vendor] ?? vendor}/${known}${baseRates === FREE ? ' (listed without a price: free)' : ''}`,
    checked: 'package data',
  };
}
