/** Rates of one billing band, USD per million tokens. */
export interface PriceRates {
  inputPerMTok: number;
  cacheWrite5mPerMTok: number;
  cacheWrite1hPerMTok: number;
  cacheReadPerMTok: number;
  outputPerMTok: number;
}

/** Whose prices: Cachet's own rows, a user's models file (`--models-file`), or the genai-prices fallback. */
export type PriceSource = 'cachet' | 'models-file' | 'genai-prices';

/** Prices of one model in USD per million tokens, by billing bucket. */
export interface PriceRow extends PriceRates {
  /** Whose price list the row comes from (`anthropic`, `openai`; OpenRouter passes these prices through). */
  vendor: string;
  /** Model id, matched by `matchModelRow`'s rule (`claude-haiku-4-5` covers `claude-haiku-4-5-20251001`). */
  model: string;
  /**
   * A second band for long prompts: a request whose whole prompt (uncached + cache reads + cache
   * writes) exceeds `thresholdTokens` pays these rates on every token, output included
   * (Claude Haiku 5.5 above 100k). Modelled per request, never averaged.
   */
  longPrompt?: PriceRates & { thresholdTokens: number };
  /** Where the row came from: Cachet's own tables (absent), a user's models file, or the genai-prices fallback. */
  priceSource?: PriceSource;
  source: string;
  checked: string;
}

/** Cache prices as multiples of a row's input rate: what every caching decision weighs. */
export interface CacheMultipliers {
  write5m: number;
  write1h: number;
  read: number;
}

/**
 * The row's cache multipliers (base band): write 5m, write 1h and read over the input rate.
 *
 * @example
 * cacheMultipliersOf(row); // { write5m: 1.25, write1h: 2, read: 0.025 } for Claude Fable 5.1
 */
export function cacheMultipliersOf(row: PriceRates): CacheMultipliers {
  return {
    write5m: row.cacheWrite5mPerMTok / row.inputPerMTok,
    write1h: row.cacheWrite1hPerMTok / row.inputPerMTok,
    read: row.cacheReadPerMTok / row.inputPerMTok,
  };
}

/**
 * The band a request pays: the long-prompt band when its prompt exceeds the row's threshold.
 *
 * @example
 * ratesForPrompt(haiku55, 150_000).inputPerMTok; // 0.5
 */
export function ratesForPrompt(row: PriceRow, promptTokens: number): PriceRates {
  return row.longPrompt && promptTokens > row.longPrompt.thresholdTokens ? row.longPrompt : row;
}

/**
 * A long-prompt band from another row's rates (only the five rate fields are kept).
 *
 * @example
 * ({ ...base, longPrompt: longPromptBand(100_000, longRates) });
 */
export function longPromptBand(thresholdTokens: number, rates: PriceRates): PriceRates & { thresholdTokens: number } {
  return {
    thresholdTokens,
    inputPerMTok: rates.inputPerMTok,
    cacheWrite5mPerMTok: rates.cacheWrite5mPerMTok,
    cacheWrite1hPerMTok: rates.cacheWrite1hPerMTok,
    cacheReadPerMTok: rates.cacheReadPerMTok,
    outputPerMTok: rates.outputPerMTok,
  };
}
