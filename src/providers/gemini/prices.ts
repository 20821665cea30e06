import type { PriceRates, PriceRow } from '../shared/price-row.js';

/**
 * Gemini API prices, USD per million tokens. Pro models bill prompts over 200K tokens at a second
 * band (modelled per request, `longPrompt`). No write premium: implicit writes are free and an
 * explicit cache is created at the input price; explicit storage per hour is in the model rows.
 */
const SOURCE = 'ai.google.dev/gemini-api/docs/pricing (standard tier)';
const CHECKED = '2026-11-23';
const CHECKED_NOW = '2026-11-25';
/** 3.6–3.8 Flash: introductory price through 2026-12-31, doubling on 2027-01-01 (pricing page; models.dev gemini-3.6-flash.toml). */
const PROMO = `${SOURCE}: introductory $0.75 / $3.75, cache read $0.075 through 2026-12-31; $1.50 / $7.50 / $0.15 from 2027-01-01 — update this row then`;
const TRANSCRIBED = `${SOURCE}, as transcribed 2026-10-07 (api-evangelist/deepmind plans); cache read at 0.1× as on every 2.5+ model`;

function rates(input: number, cached: number, output: number): PriceRates {
  return {
    inputPerMTok: input,
    cacheWrite5mPerMTok: input,
    cacheWrite1hPerMTok: input,
    cacheReadPerMTok: cached,
    outputPerMTok: output,
  };
}

function gemini(
  model: string,
  input: number,
  cached: number,
  output: number,
  options: { source?: string; checked?: string; over200k?: [input: number, cached: number, output: number] } = {},
): PriceRow {
  const long = options.over200k;
  return {
    vendor: 'google',
    model,
    ...rates(input, cached, output),
    ...(long ? { longPrompt: { thresholdTokens: 200_000, ...rates(...long) } } : {}),
    source: options.source ?? SOURCE,
    checked: options.checked ?? CHECKED,
  };
}

export const GEMINI_PRICES: readonly PriceRow[] = [
  gemini('gemini-3.8-flash', 0.75, 0.075, 3.75, { source: PROMO, checked: CHECKED_NOW }),
  gemini('gemini-3.7-flash', 0.75, 0.075, 3.75, { source: PROMO, checked: CHECKED_NOW }),
  gemini('gemini-3.6-flash', 0.75, 0.075, 3.75, { source: PROMO, checked: CHECKED_NOW }),
  gemini('gemini-3.5-flash', 1.5, 0.15, 9, { source: TRANSCRIBED, checked: CHECKED_NOW }),
  gemini('gemini-3.5-flash-lite', 0.3, 0.03, 2.5, { source: TRANSCRIBED, checked: CHECKED_NOW }),
  gemini('gemini-3.1-pro', 2, 0.2, 12, { source: TRANSCRIBED, checked: CHECKED_NOW, over200k: [4, 0.4, 18] }),
  gemini('gemini-3-pro', 2, 0.2, 12, { over200k: [4, 0.4, 18] }),
  gemini('gemini-3-flash', 0.5, 0.05, 3),
  gemini('gemini-2.5-pro', 1.25, 0.125, 10, { over200k: [2.5, 0.25, 15] }),
  gemini('gemini-2.5-flash', 0.3, 0.03, 2.5),
  gemini('gemini-2.5-flash-lite', 0.1, 0.01, 0.4),
  gemini('gemini-2.0-flash', 0.1, 0.025, 0.4),
];
