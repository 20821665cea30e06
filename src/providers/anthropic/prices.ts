import type { PriceRow } from '../shared/price-row.js';

const ANTHROPIC_SOURCE = 'platform.claude.com/docs/en/about-claude/pricing (model pricing table, archived 2026)';
const SONNET_5_SOURCE = 'platform.claude.com/docs/en/models/sonnet-5/overview (pricing, archived 2026)';
const CHECKED = '2026-11-21';

function anthropicPrice(model: string, input: number, output: number, source = ANTHROPIC_SOURCE, read = input * 0.1): PriceRow {
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

/** Anthropic's price list (Claude API). Pass your own rows to `costOf` rather than editing these. */
export const ANTHROPIC_PRICES: readonly PriceRow[] = [
  anthropicPrice('claude-opus-5', 5, 25),
  anthropicPrice('claude-opus-4-8', 5, 25),
  anthropicPrice('claude-opus-4-7', 5, 25),
  anthropicPrice('claude-opus-4-6', 5, 25),
  anthropicPrice('claude-opus-4-5', 5, 25),
  anthropicPrice('claude-opus-4-1', 15, 75),
  anthropicPrice('claude-opus-4', 15, 75),
  anthropicPrice('claude-sonnet-5', 2, 10, SONNET_5_SOURCE),
  anthropicPrice('claude-sonnet-4-6', 3, 15),
  anthropicPrice('claude-sonnet-4-5', 3, 15),
  anthropicPrice('claude-sonnet-4', 3, 15),
  anthropicPrice('claude-haiku-4-5', 1, 5),
  anthropicPrice('claude-3-5-haiku', 0.8, 4),
  anthropicPrice('claude-haiku-3-5', 0.8, 4),
];
