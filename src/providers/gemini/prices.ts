/**
 * Gemini API prices, USD per million tokens, for prompts up to 200K tokens (longer prompts
 * cost more and are not modelled). No write premium: implicit writes are free and an explicit
 * cache is created at the input price; explicit storage per hour is in the model rows.
 */
const SOURCE = 'ai.google.dev/gemini-api/docs/pricing (standard tier, prompts <= 200K tokens)';
const CHECKED = '2026-11-23';

function gemini(model: string, input: number, cached: number, output: number) {
  return {
    vendor: 'google',
    model,
    inputPerMTok: input,
    cacheWrite5mPerMTok: input,
    cacheWrite1hPerMTok: input,
    cacheReadPerMTok: cached,
    outputPerMTok: output,
    source: SOURCE,
    checked: CHECKED,
  };
}

export const GEMINI_PRICES = [
  gemini('gemini-3-pro', 2, 0.2, 12),
  gemini('gemini-3-flash', 0.5, 0.05, 3),
  gemini('gemini-2.5-pro', 1.25, 0.125, 10),
  gemini('gemini-2.5-flash', 0.3, 0.03, 2.5),
  gemini('gemini-2.5-flash-lite', 0.1, 0.01, 0.4),
  gemini('gemini-2.0-flash', 0.1, 0.025, 0.4),
] as const;
