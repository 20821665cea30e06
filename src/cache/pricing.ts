import type { ProviderId } from '../providers/adapter.js';

/** Prices of one model in USD per million tokens, by billing bucket. */
export interface PriceRow {
  /** Whose price list the row comes from (OpenRouter passes these prices through). */
  vendor: 'anthropic' | 'openai';
  /** Model id; also covers dated ids and suffixes after a `-` (`claude-haiku-4-5-20251001`). */
  model: string;
  inputPerMTok: number;
  cacheWrite5mPerMTok: number;
  cacheWrite1hPerMTok: number;
  cacheReadPerMTok: number;
  outputPerMTok: number;
  source: string;
  checked: string;
}

const ANTHROPIC_SOURCE = 'platform.claude.com/docs/en/about-claude/pricing (model pricing table, archived 2026)';
const SONNET_5_SOURCE = 'platform.claude.com/docs/en/models/sonnet-5/overview (pricing, archived 2026)';
const OPENAI_SOURCE =
  'developers.openai.com/api/docs/pricing (as quoted by archived price comparisons, 2026); cached-input discount per family from the prompt-caching guide';
const CHECKED = '2026-11-21';

function anthropic(model: string, input: number, output: number, source = ANTHROPIC_SOURCE, read = input * 0.1): PriceRow {
  // Write 5m 1.25×, write 1h 2×, read 0.1× the input rate (prompt-caching docs).
  return {
    vendor: 'anthropic',
    model,
    inputPerMTok: input,
    cacheWrite5mPerMTok: input * 1.25,
    cacheWrite1hPerMTok: input * 2,
    cacheReadPerMTok: read,
    outputPerMTok: output,
    source,
    checked: CHECKED,
  };
}

function openai(model: string, input: number, cachedInput: number, output: number): PriceRow {
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
 * The built-in price table. Providers change prices: pass your own rows to `costOf` (they
 * win over these) rather than editing code.
 */
export const PRICES: readonly PriceRow[] = [
  anthropic('claude-opus-5', 5, 25),
  anthropic('claude-opus-4-8', 5, 25),
  anthropic('claude-opus-4-7', 5, 25),
  anthropic('claude-opus-4-6', 5, 25),
  anthropic('claude-opus-4-5', 5, 25),
  anthropic('claude-opus-4-1', 15, 75),
  anthropic('claude-opus-4', 15, 75),
  anthropic('claude-sonnet-5', 2, 10, SONNET_5_SOURCE),
  anthropic('claude-sonnet-4-6', 3, 15),
  anthropic('claude-sonnet-4-5', 3, 15),
  anthropic('claude-sonnet-4', 3, 15),
  anthropic('claude-haiku-4-5', 1, 5),
  anthropic('claude-3-5-haiku', 0.8, 4),
  anthropic('claude-haiku-3-5', 0.8, 4),
  openai('gpt-5.5', 5, 0.5, 30),
  openai('gpt-5.4', 2.5, 0.25, 15),
  openai('gpt-5.4-mini', 0.75, 0.075, 4.5),
  openai('gpt-5.4-nano', 0.2, 0.02, 1.25),
  openai('gpt-5', 1.25, 0.125, 10),
  openai('gpt-5-mini', 0.25, 0.025, 2),
  openai('gpt-5-nano', 0.05, 0.005, 0.4),
  openai('gpt-4.1', 2, 0.5, 8),
  openai('gpt-4.1-mini', 0.4, 0.1, 1.6),
  openai('gpt-4.1-nano', 0.1, 0.025, 0.4),
  openai('gpt-4o', 2.5, 1.25, 10),
  openai('gpt-4o-mini', 0.15, 0.075, 0.6),
];

/**
 * The price row for a model on a wire API: caller rows first, then the built-in table; the
 * longest row id that equals the model or prefixes it before a `-` wins. OpenRouter ids
 * (`anthropic/claude-sonnet-4.5`, `openai/gpt-4.1`) are looked up in the vendor's list.
 * Local engines and unknown models have no row (null).
 *
 * @example
 * findPrice('anthropic', 'claude-haiku-4-5-20251001')?.inputPerMTok; // 1
 */
export function findPrice(provider: ProviderId, model: string, overrides: readonly PriceRow[] = []): PriceRow | null {
  const target = vendorModel(provider, model);
  if (!target) return null;
  return longestMatch(overrides, target) ?? longestMatch(PRICES, target);
}

function vendorModel(provider: ProviderId, model: string): { vendor: PriceRow['vendor']; model: string } | null {
  switch (provider) {
    case 'anthropic':
      return { vendor: 'anthropic', model };
    case 'openai-chat':
    case 'openai-responses':
      return { vendor: 'openai', model };
    case 'openrouter': {
      const [vendor, ...rest] = model.split('/');
      const id = rest.join('/');
      if (vendor === 'anthropic') return { vendor: 'anthropic', model: id.replaceAll('.', '-') };
      if (vendor === 'openai') return { vendor: 'openai', model: id };
      return null;
    }
    case 'openai-compatible':
      return null;
  }
}

function longestMatch(rows: readonly PriceRow[], target: { vendor: PriceRow['vendor']; model: string }): PriceRow | null {
  let best: PriceRow | null = null;
  for (const row of rows) {
    if (row.vendor !== target.vendor) continue;
    const matches = target.model === row.model || target.model.startsWith(`${row.model}-`);
    if (matches && (!best || row.model.length > best.model.length)) best = row;
  }
  return best;
}
