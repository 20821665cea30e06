import { matchModelRow } from '../../model/match-model.js';
import { type UserModelRow, userRowsAs } from '../shared/user-model-rows.js';

/**
 * Gemini model facts that decide caching, as data: implicit caching (automatic on 2.5 and
 * later, no write cost, no guarantee), explicit `cachedContents` minimums, the read discount
 * and the hourly storage price of an explicit cache. Callers override rows through
 * `resolveGeminiModel`'s `overrides`.
 */

export interface GeminiModelRow {
  /** Model ids this row covers, matched by `matchModelRow`'s rule (`gemini-2.5-flash` covers `gemini-2.5-flash-preview-09-2025`). */
  models: readonly string[];
  family: string;
  /** True when the model caches repeated prefixes on its own. */
  implicitCaching: boolean;
  /** Smallest prompt implicit caching considers, in tokens. */
  implicitMinimumTokens: number;
  /** Smallest content an explicit cache may hold, in tokens. */
  explicitMinimumTokens: number;
  /** Cached input price as a multiple of the input rate (implicit hits and explicit reads alike). */
  readMultiplier: number;
  /** Explicit cache storage, USD per million tokens per hour. */
  storagePerMTokHour: number;
  source: string;
  checked: string;
}

const CACHING_DOCS = 'ai.google.dev/gemini-api/docs/caching (implicit and explicit caching, minimum input tokens)';
const PRICING_DOCS = 'ai.google.dev/gemini-api/docs/pricing (context caching price and storage per hour)';
const CHECKED = '2026-11-23';
const CHECKED_NOW = '2026-11-25';

function row(
  models: string[],
  family: string,
  minimum: number,
  storage: number,
  implicit = true,
  read = 0.1,
  note?: string,
): GeminiModelRow {
  return {
    models,
    family,
    implicitCaching: implicit,
    implicitMinimumTokens: minimum,
    explicitMinimumTokens: minimum,
    readMultiplier: read,
    storagePerMTokHour: storage,
    source: note ? `${CACHING_DOCS}; ${PRICING_DOCS}; ${note}` : `${CACHING_DOCS}; ${PRICING_DOCS}`,
    checked: note ? CHECKED_NOW : CHECKED,
  };
}

const MINIMUMS_2026_10 =
  'minimums from the caching page as updated 2026-10 (2.5 Flash and 2.5 Pro 2,048; 3.1 Pro and 3.5–3.8 Flash 4,096)';
const NOT_LISTED = "not in the caching page's minimum table: the largest listed minimum (4,096) assumed";

export const GEMINI_MODELS: readonly GeminiModelRow[] = [
  row(['gemini-3.8-flash'], 'Gemini 3.8 Flash', 4096, 1, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-3.7-flash'], 'Gemini 3.7 Flash', 4096, 1, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-3.6-flash'], 'Gemini 3.6 Flash', 4096, 1, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-3.5-flash'], 'Gemini 3.5 Flash', 4096, 1, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-3.5-flash-lite'], 'Gemini 3.5 Flash-Lite', 4096, 1, true, 0.1, NOT_LISTED),
  row(['gemini-3.1-pro'], 'Gemini 3.1 Pro', 4096, 4.5, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-3.1-flash-lite'], 'Gemini 3.1 Flash-Lite', 4096, 1, true, 0.1, NOT_LISTED),
  row(['gemini-3-pro'], 'Gemini 3 Pro', 4096, 4.5),
  row(['gemini-3-flash'], 'Gemini 3 Flash', 1024, 1),
  row(['gemini-2.5-pro'], 'Gemini 2.5 Pro', 2048, 4.5, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-2.5-flash'], 'Gemini 2.5 Flash', 2048, 1, true, 0.1, MINIMUMS_2026_10),
  row(['gemini-2.5-flash-lite'], 'Gemini 2.5 Flash-Lite', 1024, 1),
  // 2.0 models cache only explicitly, at a 75% discount.
  row(['gemini-2.0-flash'], 'Gemini 2.0 Flash', 4096, 1, false, 0.25),
];

/** Models no row matches: no implicit caching assumed, the largest documented minimum. */
export const UNKNOWN_GEMINI_MODEL: GeminiModelRow = {
  ...row([], 'unknown Gemini model', 4096, 4.5, false),
  source: 'fallback: the most restrictive documented row',
};

/**
 * The row for a model id (`models/` prefix allowed): caller overrides first, then the active
 * models-file rows, then the table.
 *
 * @example
 * resolveGeminiModel('gemini-2.5-flash').implicitMinimumTokens; // 2048
 */
export function resolveGeminiModel(model: string, overrides: readonly GeminiModelRow[] = []): GeminiModelRow {
  const user = userRowsAs(['gemini'], 'gemini-models', geminiRowOf);
  return matchModelRow(model, [overrides, user, GEMINI_MODELS], (row) => row.models) ?? UNKNOWN_GEMINI_MODEL;
}

/** A models-file row over the built-in row its id matches: its minimum and its read multiplier. */
function geminiRowOf(user: UserModelRow): GeminiModelRow | null {
  if (user.floorTokens === undefined && !user.price) return null;
  const base = matchModelRow(user.model, [GEMINI_MODELS], (row) => row.models) ?? UNKNOWN_GEMINI_MODEL;
  const price = user.price;
  return {
    ...base,
    models: [user.model],
    implicitMinimumTokens: user.floorTokens ?? base.implicitMinimumTokens,
    explicitMinimumTokens: user.floorTokens ?? base.explicitMinimumTokens,
    readMultiplier: price && price.inputPerMTok > 0 ? price.cacheReadPerMTok / price.inputPerMTok : base.readMultiplier,
    source: user.source,
    checked: user.checked,
  };
}
