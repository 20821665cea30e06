/**
 * Amazon Bedrock model facts that decide caching through the Converse API, as data. Claude on
 * Bedrock takes its floors from the Anthropic table (`resolveAnthropicModel`) plus the short
 * exceptions list below; Amazon Nova has rows of its own. Callers override or add rows through
 * `resolveBedrockModel`'s `overrides`, never by editing code paths.
 */
import { matchModelRow } from '../../model/match-model.js';
import { type AnthropicModelRow, resolveAnthropicModel } from '../anthropic/models.js';
import { anthropicCacheMultipliers } from '../anthropic/prices.js';
import { cacheMultipliersOf } from '../shared/price-row.js';
import { type UserModelRow, userRowsAs } from '../shared/user-model-rows.js';

export type BedrockTtl = '5m' | '1h';
/** The Converse fields a `cachePoint` block may go in, in prefix order. */
export type BedrockCacheField = 'tools' | 'system' | 'messages';

export interface BedrockModelRow {
  /** Model ids this row covers, matched by `matchModelRow`'s rule (`nova-pro` covers `us.amazon.nova-pro-v1:0`). */
  models: readonly string[];
  family: string;
  /** Minimum tokens from the start of the request to a checkpoint; shorter prefixes are not cached. */
  minimumTokensPerCheckpoint: number;
  /** Checkpoints a request may carry. */
  maxCheckpoints: number;
  /** Fields that accept `cachePoint` blocks (Nova does not cache tool definitions). */
  cacheFields: readonly BedrockCacheField[];
  ttlOptions: readonly BedrockTtl[];
  /** Largest prefix the model caches, in tokens (null: no documented cap). */
  maxCachedPrefixTokens: number | null;
  /**
   * Block positions searched backwards from a checkpoint for an earlier entry (Claude's
   * "simplified" cache management, 20); 0 means only an entry at the checkpoint itself is read.
   */
  lookbackBlocks: number;
  /** Price multipliers on the model's input rate. */
  pricing: { write5m: number; write1h: number; read: number };
  source: string;
  checked: string;
}

const BEDROCK_DOCS = 'docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html (supported models table)';
const CACHE_POINT_DOCS = 'docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html';
const CHECKED = '2026-11-23';

/**
 * Claude models that accept `ttl: "1h"` on Bedrock [aws.amazon.com/about-aws/whats-new, 1-hour
 * prompt caching, 2026-01-26; docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html:
 * "most models support a 5-minute TTL", the extended 1-hour TTL for Claude Opus 4.5, Haiku 4.5
 * and Sonnet 4.5; the 4.6 rows from users' Bedrock tests (opencode#23106)].
 *
 * The Claude 5 generation (Fable, Mythos, Opus 5 / 5.5, Sonnet 5 / 5.5, Haiku 5.5) is NOT listed,
 * checked 2026-11-27: neither the Bedrock prompt-caching guide nor any AWS page found names a
 * Claude 5 model for the 1-hour TTL. Bedrock rejects an unsupported `ttl` with a
 * ValidationException, so Cachet plans these models with 5 minutes until AWS documents more;
 * a user who has seen `1h` honoured adds `ttlOptions: [5m, 1h]` in a models file (provider bedrock)
 * or measures it with `npm run probe:anthropic`.
 */
export const BEDROCK_CLAUDE_ONE_HOUR_CHECKED = '2026-11-27';
const CLAUDE_ONE_HOUR: readonly string[] = [
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
  'claude-opus-4-5',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
];

/**
 * Where Claude on Bedrock differs from Claude on the Messages API. Everything else (floors,
 * pricing multipliers, four checkpoints, the 20-block lookback) is the Anthropic row.
 */
export const BEDROCK_CLAUDE_EXCEPTIONS: ReadonlyArray<{
  models: readonly string[];
  change: Partial<BedrockModelRow>;
  why: string;
}> = [
  {
    models: ['claude-3-7-sonnet'],
    change: { family: 'Claude 3.7 Sonnet', minimumTokensPerCheckpoint: 1024, ttlOptions: ['5m'] },
    why: 'not in the current Anthropic table; Bedrock lists it with a 1,024-token minimum and no 1-hour TTL',
  },
  {
    models: ['claude-3-5-haiku'],
    change: { ttlOptions: ['5m'] },
    why: 'Bedrock offers only the 5-minute TTL for Claude 3.5 Haiku',
  },
  {
    models: ['claude-sonnet-4-20250514', 'claude-opus-4-20250514', 'claude-opus-4-1', 'claude-sonnet-4-0', 'claude-opus-4-0'],
    change: { ttlOptions: ['5m'] },
    why: 'the 1-hour TTL reached Bedrock with the 4.5 generation; older Claude 4 models keep 5 minutes',
  },
];

function nova(models: string[], family: string): BedrockModelRow {
  return {
    models,
    family,
    // The table says "1K"; 1,024 errs towards "may not be cached".
    minimumTokensPerCheckpoint: 1024,
    maxCheckpoints: 4,
    cacheFields: ['system', 'messages'],
    ttlOptions: ['5m'],
    maxCachedPrefixTokens: 20_000,
    lookbackBlocks: 0,
    // Nova bills no write premium; cached reads are 75% off [aws.amazon.com/bedrock/pricing, Nova rows].
    pricing: { write5m: 1, write1h: 1, read: 0.25 },
    source: `${BEDROCK_DOCS}; Nova: system and messages only, 20K-token cap; ${CACHE_POINT_DOCS}`,
    checked: CHECKED,
  };
}

/** Rows that are not derived from the Anthropic table. Longest prefix wins. */
export const BEDROCK_MODELS: readonly BedrockModelRow[] = [
  nova(['nova-micro'], 'Amazon Nova Micro'),
  nova(['nova-lite'], 'Amazon Nova Lite'),
  nova(['nova-pro'], 'Amazon Nova Pro'),
  nova(['nova-premier'], 'Amazon Nova Premier'),
  nova(['nova-2-lite'], 'Amazon Nova 2 Lite'),
];

/** Region and vendor prefixes of Bedrock model ids and inference profiles. */
const ID_PREFIXES = /^(?:arn:aws[^/]*\/)?(?:(?:us|eu|apac|jp|au|ca|us-gov|global)\.)?(?:anthropic|amazon)\./;

/**
 * The vendor model id behind a Bedrock model id or inference profile:
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929-v1:0`.
 *
 * @example
 * bedrockBaseModelId('global.anthropic.claude-haiku-4-5-20251001-v1:0'); // 'claude-haiku-4-5-20251001-v1:0'
 */
export function bedrockBaseModelId(modelId: string): string {
  return modelId.replace(ID_PREFIXES, '');
}

/** True when the id names a Claude model (Anthropic rows apply). */
export function isBedrockClaude(modelId: string): boolean {
  return bedrockBaseModelId(modelId).startsWith('claude-');
}

/**
 * The row for a Bedrock model id: caller overrides first, then the active models-file rows
 * (provider bedrock), then Nova rows, then Claude rows
 * derived from the Anthropic table with Bedrock's exceptions applied. Unknown models get the
 * cautious row (4,096-token minimum, 5-minute TTL, no tools).
 *
 * @example
 * resolveBedrockModel('us.anthropic.claude-haiku-4-5-20251001-v1:0').minimumTokensPerCheckpoint; // 4096
 * resolveBedrockModel('amazon.nova-pro-v1:0').cacheFields; // ['system', 'messages']
 */
export function resolveBedrockModel(modelId: string, overrides: readonly BedrockModelRow[] = []): BedrockModelRow {
  const own = matchModelRow(modelId, [overrides, userRowsAs(['bedrock'], 'bedrock-models', bedrockRowOf)], (row) => row.models);
  return own ?? builtInBedrockRow(modelId);
}

function builtInBedrockRow(modelId: string): BedrockModelRow {
  const own = matchModelRow(modelId, [BEDROCK_MODELS], (row) => row.models);
  if (own) return own;
  const base = bedrockBaseModelId(modelId);
  if (base.startsWith('claude-')) return claudeRow(base);
  return UNKNOWN_BEDROCK_MODEL;
}

/** A models-file row (provider bedrock) over the built-in row its id resolves to. */
function bedrockRowOf(user: UserModelRow): BedrockModelRow {
  const base = builtInBedrockRow(user.model);
  return {
    ...base,
    models: [user.model],
    family: base.models.length > 0 ? base.family : user.model,
    minimumTokensPerCheckpoint: user.floorTokens ?? base.minimumTokensPerCheckpoint,
    ttlOptions: user.ttlOptions ?? base.ttlOptions,
    pricing: user.price ? cacheMultipliersOf(user.price) : base.pricing,
    source: user.source,
    checked: user.checked,
  };
}

function claudeRow(base: string): BedrockModelRow {
  const anthropic: AnthropicModelRow = resolveAnthropicModel(base);
  const row: BedrockModelRow = {
    models: anthropic.models,
    family: anthropic.family,
    minimumTokensPerCheckpoint: anthropic.effectiveFloorTokens,
    maxCheckpoints: 4,
    cacheFields: ['tools', 'system', 'messages'],
    ttlOptions: matchModelRow(base, [CLAUDE_ONE_HOUR], (id) => [id]) ? ['5m', '1h'] : ['5m'],
    maxCachedPrefixTokens: null,
    lookbackBlocks: 20,
    // The Anthropic price row's multipliers: Bedrock lists Claude at Anthropic's rates (Fable 5.1 reads at 0.025×).
    pricing: anthropicCacheMultipliers(base),
    source: `${anthropic.source} (Anthropic row, reused); ${BEDROCK_DOCS}`,
    checked: CHECKED,
  };
  const exception = matchModelRow(base, [BEDROCK_CLAUDE_EXCEPTIONS], (entry) => entry.models);
  return exception ? { ...row, ...exception.change, source: `${row.source}; exception: ${exception.why}` } : row;
}

export const UNKNOWN_BEDROCK_MODEL: BedrockModelRow = {
  models: [],
  family: 'unknown Bedrock model',
  minimumTokensPerCheckpoint: 4096,
  maxCheckpoints: 4,
  cacheFields: ['system', 'messages'],
  ttlOptions: ['5m'],
  maxCachedPrefixTokens: null,
  lookbackBlocks: 0,
  pricing: { write5m: 1.25, write1h: 2, read: 0.1 },
  source: 'fallback: the most restrictive documented row',
  checked: CHECKED,
};
