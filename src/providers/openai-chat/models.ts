import { matchModelRow } from '../../model/match-model.js';
import { type UserModelRow, userRowsAs } from '../shared/user-model-rows.js';

/**
 * OpenAI model facts that change how Cachet builds a request, as data. Rows list the model ids
 * they cover, matched by `matchModelRow`'s rule (the longest matching id wins: `gpt-5.5` beats
 * `gpt-5`). Users pass their own rows first to override or extend (see `resolveOpenAIModel`).
 */
export interface OpenAIModelFacts {
  /** Model ids this row covers (`gpt-4.1` covers `gpt-4.1-mini-2025-04-14`); empty for the fallback row. */
  models: readonly string[];
  family: string;
  /** Prompts shorter than this are never cached (OpenAI: 1,024 tokens, hits in 128-token steps). */
  minimumPrefixTokens: number;
  /** GPT-5.6 and later accept `prompt_cache_breakpoint` markers and `prompt_cache_options`. */
  explicitBreakpoints: boolean;
  /** Values `prompt_cache_retention` accepts for this model. */
  retention: ReadonlyArray<'in_memory' | '24h'>;
  /**
   * Retention the API applies when the body names none, for an organisation without zero data
   * retention (ZDR organisations get `in_memory` wherever the model accepts it).
   */
  defaultRetention: 'in_memory' | '24h';
  /** Share of the input price saved on a cached token (0.9 = cached input costs 10%). */
  cachedInputDiscount: number;
  /** Reasoning models: `developer` role, `reasoning` / `reasoning_effort`, no sampling parameters. */
  reasoning: boolean;
  source: string;
  checked: string;
}

/** `gpt-5.6` … `gpt-5.99`: every later GPT-5 point release takes explicit breakpoints. */
const GPT_5_6_AND_LATER = Array.from({ length: 94 }, (_, index) => `gpt-5.${index + 6}`);

const GUIDE = 'developers.openai.com/api/docs/guides/prompt-caching; openai SDK 6.49.0 request type docs';
/** Where the retention columns come from. */
const RETENTION_SOURCE =
  'openai SDK 6.49.0 `prompt_cache_retention` docs: gpt-5.5+ only 24h; older models accepting both default to 24h without ZDR, in_memory with ZDR; same cache price for both (prompt-caching guide; Azure OpenAI prompt caching)';

/** Built-in facts, most specific first. Checked against CACHE-FACTS.md on 2026-11-21. */
export const OPENAI_MODELS: readonly OpenAIModelFacts[] = [
  {
    models: GPT_5_6_AND_LATER,
    family: 'gpt-5.6+',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: true,
    retention: ['24h'],
    defaultRetention: '24h',
    cachedInputDiscount: 0.9,
    reasoning: true,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: ['gpt-5.5'],
    family: 'gpt-5.5',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['24h'],
    defaultRetention: '24h',
    cachedInputDiscount: 0.9,
    reasoning: true,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: ['gpt-5', 'gpt-5.1', 'gpt-5.2', 'gpt-5.3', 'gpt-5.4'],
    family: 'gpt-5',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['in_memory', '24h'],
    defaultRetention: '24h',
    cachedInputDiscount: 0.9,
    reasoning: true,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: ['gpt-4.1'],
    family: 'gpt-4.1',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['in_memory', '24h'],
    defaultRetention: '24h',
    cachedInputDiscount: 0.75,
    reasoning: false,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: ['gpt-4o'],
    family: 'gpt-4o',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['in_memory'],
    defaultRetention: 'in_memory',
    cachedInputDiscount: 0.5,
    reasoning: false,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: ['o1', 'o3', 'o4'],
    family: 'o-series',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['in_memory'],
    defaultRetention: 'in_memory',
    cachedInputDiscount: 0.75,
    reasoning: true,
    source: `${GUIDE}; ${RETENTION_SOURCE}`,
    checked: '2026-11-23',
  },
  {
    models: [],
    family: 'unknown',
    minimumPrefixTokens: 1024,
    explicitBreakpoints: false,
    retention: ['in_memory'],
    defaultRetention: 'in_memory',
    cachedInputDiscount: 0,
    reasoning: false,
    source: `${GUIDE} (fallback row: automatic caching only)`,
    checked: '2026-11-23',
  },
];

/**
 * Facts for `model`: the matching row of `overrides`, then of the active models-file rows, then of the built-in table, then the
 * fallback row (automatic caching only).
 *
 * @example
 * resolveOpenAIModel('gpt-5.6-mini').explicitBreakpoints // true
 * resolveOpenAIModel('my-ft-model', [{ ...OPENAI_MODELS[2]!, models: ['my-ft'] }]).family // 'gpt-5'
 */
export function resolveOpenAIModel(model: string, overrides: readonly OpenAIModelFacts[] = []): OpenAIModelFacts {
  const fallback = OPENAI_MODELS[OPENAI_MODELS.length - 1]!;
  const user = userRowsAs(['openai-chat', 'openai-responses'], 'openai-models', openAIRowOf);
  return matchModelRow(model, [overrides, user, OPENAI_MODELS], (row) => row.models) ?? fallback;
}

/** A models-file row over the built-in row its id matches: its floor and its read discount. */
function openAIRowOf(user: UserModelRow): OpenAIModelFacts | null {
  if (user.floorTokens === undefined && !user.price) return null;
  const base = matchModelRow(user.model, [OPENAI_MODELS], (row) => row.models) ?? OPENAI_MODELS[OPENAI_MODELS.length - 1]!;
  const price = user.price;
  return {
    ...base,
    models: [user.model],
    minimumPrefixTokens: user.floorTokens ?? base.minimumPrefixTokens,
    cachedInputDiscount:
      price && price.inputPerMTok > 0 ? 1 - price.cacheReadPerMTok / price.inputPerMTok : base.cachedInputDiscount,
    source: user.source,
    checked: user.checked,
  };
}
