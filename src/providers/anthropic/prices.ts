import { matchModelRow } from '../../model/match-model.js';
import { type CacheMultipliers, cacheMultipliersOf, longPromptBand, type PriceRow } from '../shared/price-row.js';
import { userPriceRows } from '../shared/user-model-rows.js';

const PRICING_PAGE = 'platform.claude.com/docs/en/about-claude/pricing (model pricing table, "Prompt caching")';
const ANTHROPIC_SOURCE = `${PRICING_PAGE}, archived 2026`;
const SONNET_5_SOURCE = 'platform.claude.com/docs/en/models/sonnet-5/overview (pricing, archived 2026)';
const CHECKED = '2026-11-21';
const CHECKED_NOW = '2026-11-25';

/**
 * Standard write multipliers (5m 1.25×, 1h 2×) and the read multiplier, which since 2026-09
 * differs by model (Fable/Mythos 5.1 0.025×, Opus/Sonnet 5.5 0.05×, the rest 0.1×).
 */
interface Multipliers {
  read: number;
  source?: string;
  checked?: string;
}

function anthropicPrice(model: string, input: number, output: number, options: Multipliers = { read: 0.1 }): PriceRow {
  return {
    vendor: 'anthropic',
    model,
    inputPerMTok: input,
    cacheWrite5mPerMTok: input * 1.25,
    cacheWrite1hPerMTok: input * 2,
    cacheReadPerMTok: input * options.read,
    outputPerMTok: output,
    source: options.source ?? ANTHROPIC_SOURCE,
    checked: options.checked ?? CHECKED,
  };
}

const FABLE_51_SOURCE = `${PRICING_PAGE}: Fable 5.1 / Mythos 5.1 cache hits $0.25 against $10 input (0.025×), shipped 2026-09-01`;
// Fable 5.2 (2026-11-09): $8 / $40 on the pricing page's lineup table; cache read $0.20 (0.025×) and
// writes $10 / $16 come from two resellers matching the official list (docs.laozhang.ai, archid21/rightsize
// v0.10.2): the official per-model page was not in the archive searched.
const FABLE_52_SOURCE = `${PRICING_PAGE}: Fable 5.2 $8 / $40 (lineup table); read $0.20 (0.025×) per resellers' copies of the list, official page not seen`;
const OPUS_55_SOURCE = `${PRICING_PAGE}: Opus 5.5 $4 / $20, cache hits $0.20 (0.05×), also on platform.claude.com/docs/en/models/opus-5-5/overview`;
// The Sonnet 5.5 model page (platform.claude.com/docs/en/models/sonnet-5-5/overview) still lists a
// $0.20 read; two maintained trackers (kurofune/claudit 1.9.2, TheKrush/PromptFuel 1.0.23) record
// Anthropic's cut to $0.10 (0.05×) effective 2026-10-07 against the live pricing page. The newer,
// pricing-page figure wins; the disagreement with genai-prices is listed in price-disagreements.json.
const SONNET_55_SOURCE = `${PRICING_PAGE}: Sonnet 5.5 $2 / $10, cache hits cut to $0.10 (0.05×) on 2026-10-07; model overview page still shows $0.20`;
const HAIKU_55_SOURCE = `${PRICING_PAGE}: Haiku 5.5 prompt <= 100k $0.10 / $0.50, > 100k $0.50 / $2.50 on every token of the request`;

function haiku55(): PriceRow {
  const base = anthropicPrice('claude-haiku-5-5', 0.1, 0.5, { read: 0.1, source: HAIKU_55_SOURCE, checked: CHECKED_NOW });
  const long = anthropicPrice('claude-haiku-5-5', 0.5, 2.5);
  return { ...base, longPrompt: longPromptBand(100_000, long) };
}

/**
 * Sonnet 4.5 with the 1M-token context window (beta) bills a prompt over 200K tokens at $6 / $22.50
 * with the standard multipliers on every token of the request (pricing page, "Long context
 * pricing"; genai-prices agrees). Prompts that long exist only with the beta on.
 */
function sonnet45(): PriceRow {
  const long = anthropicPrice('claude-sonnet-4-5', 6, 22.5);
  return {
    ...anthropicPrice('claude-sonnet-4-5', 3, 15, { read: 0.1, checked: CHECKED_NOW }),
    longPrompt: longPromptBand(200_000, long),
  };
}

/** Anthropic's price list (Claude API). Pass your own rows to `costOf` rather than editing these. */
export const ANTHROPIC_PRICES: readonly PriceRow[] = [
  anthropicPrice('claude-fable-5-2', 8, 40, { read: 0.025, source: FABLE_52_SOURCE, checked: CHECKED_NOW }),
  anthropicPrice('claude-fable-5-1', 10, 50, { read: 0.025, source: FABLE_51_SOURCE, checked: CHECKED_NOW }),
  anthropicPrice('claude-mythos-5-1', 10, 50, { read: 0.025, source: FABLE_51_SOURCE, checked: CHECKED_NOW }),
  anthropicPrice('claude-fable-5', 10, 50, { read: 0.1, checked: CHECKED_NOW }),
  anthropicPrice('claude-mythos-5', 10, 50, { read: 0.1, checked: CHECKED_NOW }),
  anthropicPrice('claude-opus-5-5', 4, 20, { read: 0.05, source: OPUS_55_SOURCE, checked: CHECKED_NOW }),
  anthropicPrice('claude-sonnet-5-5', 2, 10, { read: 0.05, source: SONNET_55_SOURCE, checked: CHECKED_NOW }),
  haiku55(),
  anthropicPrice('claude-opus-5', 5, 25),
  anthropicPrice('claude-opus-4-8', 5, 25),
  anthropicPrice('claude-opus-4-7', 5, 25),
  anthropicPrice('claude-opus-4-6', 5, 25),
  anthropicPrice('claude-opus-4-5', 5, 25),
  anthropicPrice('claude-opus-4-1', 15, 75),
  anthropicPrice('claude-opus-4', 15, 75),
  anthropicPrice('claude-sonnet-5', 2, 10, { read: 0.1, source: SONNET_5_SOURCE }),
  anthropicPrice('claude-sonnet-4-6', 3, 15),
  sonnet45(),
  anthropicPrice('claude-sonnet-4', 3, 15),
  anthropicPrice('claude-haiku-4-5', 1, 5),
  anthropicPrice('claude-3-5-haiku', 0.8, 4),
  anthropicPrice('claude-haiku-3-5', 0.8, 4),
];

/** Multipliers for a Claude model no price row knows: the standard ones most models have. */
export const STANDARD_ANTHROPIC_MULTIPLIERS: CacheMultipliers = { write5m: 1.25, write1h: 2, read: 0.1 };

/**
 * The cache multipliers of a Claude model from its price row (the read multiplier differs by
 * model; a models-file row wins over the built-in one); the standard ones when no row matches. Padding, TTL and Bedrock's Claude rows read this.
 *
 * @example
 * anthropicCacheMultipliers('claude-fable-5-1').read; // 0.025
 */
export function anthropicCacheMultipliers(model: string, overrides: readonly PriceRow[] = []): CacheMultipliers {
  const tables = [overrides, userPriceRows('anthropic'), ANTHROPIC_PRICES];
  const row = matchModelRow(model, tables, (price) => [price.model], 'release');
  return row ? cacheMultipliersOf(row) : STANDARD_ANTHROPIC_MULTIPLIERS;
}
