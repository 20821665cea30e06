/** Prices of one model in USD per million tokens, by billing bucket. */
export interface PriceRow {
  /** Whose price list the row comes from (`anthropic`, `openai`; OpenRouter passes these prices through). */
  vendor: string;
  /** Model id, matched by `matchModelRow`'s rule (`claude-haiku-4-5` covers `claude-haiku-4-5-20251001`). */
  model: string;
  inputPerMTok: number;
  cacheWrite5mPerMTok: number;
  cacheWrite1hPerMTok: number;
  cacheReadPerMTok: number;
  outputPerMTok: number;
  source: string;
  checked: string;
}
