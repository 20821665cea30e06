/**
 * OpenAI model facts that change how Cachet builds a request, as data. Rows are matched in
 * order by `pattern` (a regular expression source tested against the model id); the first
 * match wins. Users pass their own rows first to override or extend (see `resolveOpenAIModel`).
 */
export interface OpenAIModelFacts {
  /** Regular expression source matched against the model id. */
  pattern: string;
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

const GUIDE = 'developers.openai.com/api/docs/guides/prompt-caching; openai SDK 6.49.0 request type docs';
/** Where the retention columns come from. */
const RETENTION_SOURCE =
  'openai SDK 6.49.0 `prompt_cache_retention` docs: gpt-5.5+ only 24h; older models accepting both default to 24h without ZDR, in_memory with ZDR; same cache price for both (prompt-caching guide; Azure OpenAI prompt caching)';

/** Built-in facts, most specific first. Checked against CACHE-FACTS.md on 2026-11-21. */
export const OPENAI_MODELS: readonly OpenAIModelFacts[] = [
  {
    pattern: '^gpt-5\\.([6-9]|[1-9]\\d)',
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
    pattern: '^gpt-5\\.5',
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
    pattern: '^gpt-5',
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
    pattern: '^gpt-4\\.1',
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
    pattern: '^gpt-4o',
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
    pattern: '^o\\d',
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
    pattern: '',
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
 * Facts for `model`: the first matching row of `overrides`, then of the built-in table.
 *
 * @example
 * resolveOpenAIModel('gpt-5.6-mini').explicitBreakpoints // true
 * resolveOpenAIModel('my-ft-model', [{ ...OPENAI_MODELS[2]!, pattern: '^my-ft' }]).family // 'gpt-5'
 */
export function resolveOpenAIModel(model: string, overrides: readonly OpenAIModelFacts[] = []): OpenAIModelFacts {
  const fallback = OPENAI_MODELS[OPENAI_MODELS.length - 1]!;
  return [...overrides, ...OPENAI_MODELS].find((row) => new RegExp(row.pattern).test(model)) ?? fallback;
}
