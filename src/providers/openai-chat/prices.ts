import { longPromptBand, type PriceRow } from '../shared/price-row.js';

const OPENAI_SOURCE =
  'developers.openai.com/api/docs/pricing (as quoted by archived price comparisons, 2026); cached-input discount per family from the prompt-caching guide';
const CHECKED = '2026-11-21';

function openAIPrice(model: string, input: number, cachedInput: number, output: number): PriceRow {
  // Automatic caching bills no write premium: written tokens cost the input rate.
  return {
    vendor: 'openai',
    model,
    inputPerMTok: input,
    cacheWrite5mPerMTok: input,
    cacheWrite1hPerMTok: input,
    cacheReadPerMTok: cachedInput,
    outputPerMTok: output,
    source: OPENAI_SOURCE,
    checked: CHECKED,
  };
}

/**
 * GPT-5.4 and 5.5 bill a request whose prompt exceeds 272K tokens at 2× input (cached input too)
 * and 1.5× output, on the whole request (pricing page "long context"; wavespeed.ai's copy of the
 * list; genai-prices agrees).
 */
function withLongPrompt(row: PriceRow, [input, cached, output]: [number, number, number]): PriceRow {
  return {
    ...row,
    longPrompt: longPromptBand(272_000, openAIPrice(row.model, input, cached, output)),
    source: `${row.source}; prompts over 272K tokens at 2× input / 1.5× output`,
    checked: '2026-11-25',
  };
}

/** OpenAI's price list (Chat Completions and Responses). Pass your own rows to `costOf` rather than editing these. */
export const OPENAI_PRICES: readonly PriceRow[] = [
  withLongPrompt(openAIPrice('gpt-5.5', 5, 0.5, 30), [10, 1, 45]),
  withLongPrompt(openAIPrice('gpt-5.4', 2.5, 0.25, 15), [5, 0.5, 22.5]),
  openAIPrice('gpt-5.4-mini', 0.75, 0.075, 4.5),
  openAIPrice('gpt-5.4-nano', 0.2, 0.02, 1.25),
  openAIPrice('gpt-5', 1.25, 0.125, 10),
  openAIPrice('gpt-5-mini', 0.25, 0.025, 2),
  openAIPrice('gpt-5-nano', 0.05, 0.005, 0.4),
  openAIPrice('gpt-4.1', 2, 0.5, 8),
  openAIPrice('gpt-4.1-mini', 0.4, 0.1, 1.6),
  openAIPrice('gpt-4.1-nano', 0.1, 0.025, 0.4),
  openAIPrice('gpt-4o', 2.5, 1.25, 10),
  openAIPrice('gpt-4o-mini', 0.15, 0.075, 0.6),
];
