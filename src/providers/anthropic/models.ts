import { matchModelRow } from '../../model/match-model.js';
import { activeUserModelRows, type UserModelRow, userRowsAs } from '../shared/user-model-rows.js';

/**
 * Anthropic model facts that decide caching behaviour, as data. Every row names its source and
 * the date it was checked; users override rows (or add models) through `resolveAnthropicModel`'s
 * `overrides` argument, never by editing code paths.
 */

export type AnthropicTtl = '5m' | '1h';

export interface AnthropicModelRow {
  /** Model ids this row covers, matched by `matchModelRow`'s rule (`claude-haiku-4-5` covers `claude-haiku-4-5-20251001`). */
  models: readonly string[];
  /** Human name for reports. */
  family: string;
  /** Minimum cacheable prefix the documentation states, in tokens (null when undocumented). */
  documentedFloorTokens: number | null;
  /**
   * The floor Cachet plans against: the documented one unless a measurement showed the cache
   * staying empty above it. Entries for shorter prefixes are silently not written.
   */
  effectiveFloorTokens: number;
  /** Estimated-token range padding aims for when the global prefix is below the floor. */
  paddingTarget: { min: number; max: number };
  ttlOptions: readonly AnthropicTtl[];
  /**
   * Request parameters besides tools, system and messages that are part of the cache key: a
   * change invalidates the messages level (`params-changed`). Dotted paths name a field inside a
   * parameter (`output_config.effort`). Per model: `effort` left the key on the 5 generation.
   */
  cacheKeyParams: readonly string[];
  source: string;
  checked: string;
}

const DOCS = 'platform.claude.com/docs/en/build-with-claude/prompt-caching (archived late summer 2026)';
const BOTH_TTLS: readonly AnthropicTtl[] = ['5m', '1h'];
const CHECKED = '2026-11-21';
const CHECKED_NOW = '2026-11-25';

/**
 * tool_choice, thinking and structured-output settings invalidate the messages level
 * (prompt-caching docs, "What invalidates the cache"). Older models: every `output_config` field,
 * effort included, counts.
 */
const KEY_WITH_EFFORT: readonly string[] = ['tool_choice', 'thinking', 'output_config'];
/**
 * Claude 5 generation: effort is an output control outside the cache key (code.claude.com/docs/en/prompt-caching;
 * measured in anthropics/claude-code#63962: an effort change read the whole 84k prefix from cache).
 * Cachet applies this to the 5-generation rows only and keeps effort in the key for 4.x, where no
 * source confirms it (a false `params-changed` costs a warning, a missed one a wrong plan).
 */
const KEY_WITHOUT_EFFORT: readonly string[] = ['tool_choice', 'thinking', 'output_config.format'];

/**
 * Padding targets sit above the effective floor with the margin the seed spec measured for
 * Haiku 4.5 (4,500–5,500 estimated tokens against a floor between 3,320 and 4,957 actual
 * tokens); lower floors keep the same ~10% lower and ~35% upper margins.
 */
function target(floor: number): { min: number; max: number } {
  if (floor >= 4096) return { min: 4500, max: 5500 };
  return { min: Math.ceil((floor * 1.1) / 100) * 100, max: Math.ceil((floor * 1.35) / 100) * 100 };
}

function row(models: string[], family: string, documented: number, effective: number, note = ''): AnthropicModelRow {
  return {
    models,
    family,
    documentedFloorTokens: documented,
    effectiveFloorTokens: effective,
    paddingTarget: target(effective),
    ttlOptions: BOTH_TTLS,
    cacheKeyParams: KEY_WITH_EFFORT,
    source: note ? `${DOCS}; ${note}` : DOCS,
    checked: CHECKED,
  };
}

/** A Claude 5-generation row: effort outside the cache key, checked 2026-11-25. */
function row5(models: string[], family: string, documented: number | null, effective: number, note: string): AnthropicModelRow {
  return {
    ...row(models, family, documented ?? effective, effective, note),
    documentedFloorTokens: documented,
    cacheKeyParams: KEY_WITHOUT_EFFORT,
    checked: CHECKED_NOW,
  };
}

const FLOOR_512 = 'minimum 512 tokens for Opus 5, Fable 5 and Mythos 5 (prompt-caching docs; dev.to/creeta, 2026)';

/** The built-in table. The longest matching id wins, so `claude-opus-4-5` beats `claude-opus-4`. */
export const ANTHROPIC_MODELS: readonly AnthropicModelRow[] = [
  row5(
    ['claude-fable-5-2'],
    'Claude Fable 5.2',
    null,
    512,
    'released 2026-11-09; floor not stated in the sources found, planned at the Fable 5 / 5.1 floor (512) — run npm run probe:anthropic to confirm',
  ),
  row5(['claude-fable-5-1'], 'Claude Fable 5.1', 512, 512, `${FLOOR_512}; 5.1 keeps the Fable 5 floor`),
  row5(['claude-mythos-5-1'], 'Claude Mythos 5.1', 512, 512, `${FLOOR_512}; 5.1 keeps the Mythos 5 floor`),
  row5(['claude-fable-5'], 'Claude Fable 5', 512, 512, FLOOR_512),
  row5(['claude-mythos-5'], 'Claude Mythos 5', 512, 512, FLOOR_512),
  row5(
    ['claude-opus-5-5'],
    'Claude Opus 5.5',
    null,
    512,
    'floor not stated in the archived docs; planned at the Opus 5 family floor (512) — run npm run probe:anthropic to confirm',
  ),
  row5(
    ['claude-sonnet-5-5'],
    'Claude Sonnet 5.5',
    null,
    1024,
    'floor not stated in the archived docs; planned at the Sonnet 5 floor (1,024) — run npm run probe:anthropic to confirm',
  ),
  row5(
    ['claude-haiku-5-5'],
    'Claude Haiku 5.5',
    null,
    4096,
    'floor not stated in the archived docs; planned at the Haiku 4.5 floor (4,096), erring towards "may not be cached"',
  ),
  row5(['claude-opus-5'], 'Claude Opus 5', 512, 512, FLOOR_512),
  row(['claude-opus-4-8'], 'Claude Opus 4.8', 1024, 1024),
  row5(['claude-sonnet-5'], 'Claude Sonnet 5', 1024, 1024, 'minimum 1,024 tokens (prompt-caching docs)'),
  row(
    ['claude-sonnet-4-6'],
    'Claude Sonnet 4.6',
    1024,
    2048,
    'effective floor 2,048: one user observed Sonnet 4.6 caching only from 2,048 tokens (CACHE-FACTS.md)',
  ),
  row(['claude-sonnet-4-5'], 'Claude Sonnet 4.5', 1024, 1024),
  row(['claude-opus-4-1'], 'Claude Opus 4.1', 1024, 1024),
  row(['claude-opus-4-0', 'claude-opus-4'], 'Claude Opus 4', 1024, 1024),
  row(['claude-sonnet-4-0', 'claude-sonnet-4'], 'Claude Sonnet 4', 1024, 1024),
  row(['claude-opus-4-7'], 'Claude Opus 4.7', 2048, 2048),
  row(['claude-3-5-haiku', 'claude-haiku-3-5'], 'Claude Haiku 3.5', 2048, 2048),
  row(['claude-opus-4-6'], 'Claude Opus 4.6', 4096, 4096),
  row(['claude-opus-4-5'], 'Claude Opus 4.5', 4096, 4096),
  row(
    ['claude-haiku-4-5'],
    'Claude Haiku 4.5',
    4096,
    4096,
    'seed spec 000 §5.1 live probe (2026-05-14): a ~3,320-token prefix was not cached, a ~4,957-token prefix was',
  ),
];

/**
 * Used for models no row matches: the largest floor any current model has, so padding and
 * warnings err towards "may not be cached". Capabilities report 0 (unknown) for these.
 */
export const UNKNOWN_ANTHROPIC_MODEL: AnthropicModelRow = {
  models: [],
  family: 'unknown Anthropic model',
  documentedFloorTokens: null,
  effectiveFloorTokens: 4096,
  paddingTarget: target(4096),
  ttlOptions: BOTH_TTLS,
  cacheKeyParams: KEY_WITH_EFFORT,
  source: 'fallback: the largest floor of any documented model',
  checked: CHECKED,
};

/**
 * The standard price multipliers on a model's input rate [platform.claude.com prompt-caching, 2026].
 * Not every model has them (Fable 5.1 reads at 0.025×): decisions read the model's own price row
 * through `anthropicCacheMultipliers`; this constant is only the default for unknown models.
 */
export const ANTHROPIC_CACHE_PRICING = {
  write5m: 1.25,
  write1h: 2,
  read: 0.1,
  source: DOCS,
  checked: CHECKED,
} as const;

/** Breakpoints a request may carry, top-level automatic caching included. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;
/** Positions searched backwards from a breakpoint for an earlier entry, the breakpoint itself included. */
export const ANTHROPIC_LOOKBACK_POSITIONS = 20;

/** Model ids remembered per set of active rows (a capture of many made-up ids resolves the rest each time). */
const MAX_RESOLVED_MODELS = 256;
const resolvedRows = new WeakMap<readonly UserModelRow[], Map<string, AnthropicModelRow>>();

/**
 * The row for a model id: caller overrides first, then the active models-file rows
 * (`--models-file`), then the built-in table, the longest matching id within a table wins
 * (`matchModelRow`).
 *
 * @example
 * resolveAnthropicModel('claude-haiku-4-5-20251001').effectiveFloorTokens; // 4096
 * resolveAnthropicModel('my-proxy-model', [{ ...row, models: ['my-proxy-model'] }]);
 */
export function resolveAnthropicModel(model: string, overrides: readonly AnthropicModelRow[] = []): AnthropicModelRow {
  if (overrides.length > 0) return matchAnthropicModel(model, overrides);
  // Resolved once per model id and set of active rows: a cache model resolves its body's model on every request.
  const active = activeUserModelRows();
  let byModel = resolvedRows.get(active);
  if (byModel === undefined) {
    byModel = new Map();
    resolvedRows.set(active, byModel);
  }
  let row = byModel.get(model);
  if (row === undefined) {
    row = matchAnthropicModel(model, overrides);
    if (byModel.size < MAX_RESOLVED_MODELS) byModel.set(model, row);
  }
  return row;
}

function matchAnthropicModel(model: string, overrides: readonly AnthropicModelRow[]): AnthropicModelRow {
  const tables = [overrides, userRowsAs(['anthropic'], 'anthropic-models', anthropicRowOf), ANTHROPIC_MODELS];
  return matchModelRow(model, tables, (row) => row.models) ?? UNKNOWN_ANTHROPIC_MODEL;
}

/**
 * A models-file row as an Anthropic model row: the facts it sets (floor, TTLs, cache-key
 * parameters) over the built-in row it would otherwise match (or the unknown row). A row that
 * sets only prices changes no model facts (null).
 */
function anthropicRowOf(user: UserModelRow): AnthropicModelRow | null {
  if (user.floorTokens === undefined && user.ttlOptions === undefined && user.cacheKeyParams === undefined) return null;
  const base = matchModelRow(user.model, [ANTHROPIC_MODELS], (row) => row.models) ?? UNKNOWN_ANTHROPIC_MODEL;
  const floor = user.floorTokens ?? base.effectiveFloorTokens;
  return {
    models: [user.model],
    family: base.models.length > 0 ? base.family : user.model,
    documentedFloorTokens: user.floorTokens ?? base.documentedFloorTokens,
    effectiveFloorTokens: floor,
    paddingTarget: target(floor),
    ttlOptions: user.ttlOptions ?? base.ttlOptions,
    cacheKeyParams: user.cacheKeyParams ?? base.cacheKeyParams,
    source: user.source,
    checked: user.checked,
  };
}
