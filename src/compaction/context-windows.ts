/** A model family's context window, in tokens. */
export interface ContextWindowRule {
  /** Matched against the model id (any `vendor/` prefix removed) from its start. */
  modelPrefix: string;
  windowTokens: number;
  source: string;
}

/**
 * Context windows by model family (first match wins), for callers that do not pass
 * `windowTokens`. Providers change them and offer larger windows behind flags: pass your own.
 */
export const CONTEXT_WINDOW_RULES: readonly ContextWindowRule[] = [
  {
    modelPrefix: 'claude-',
    windowTokens: 200_000,
    source: 'platform.claude.com models overview (standard window), checked 2026-11-21',
  },
  { modelPrefix: 'gpt-4.1', windowTokens: 1_047_576, source: 'developers.openai.com models (gpt-4.1), checked 2026-11-21' },
  { modelPrefix: 'gpt-4o', windowTokens: 128_000, source: 'developers.openai.com models (gpt-4o), checked 2026-11-21' },
  { modelPrefix: 'gpt-5', windowTokens: 400_000, source: 'developers.openai.com models (gpt-5 family), checked 2026-11-21' },
  { modelPrefix: 'deepseek-', windowTokens: 128_000, source: 'api-docs.deepseek.com models and pricing, checked 2026-11-21' },
  { modelPrefix: 'qwen3', windowTokens: 32_768, source: 'Qwen3 model cards (native context without YaRN), checked 2026-11-21' },
];

/** Used when no rule matches: a window most current models have at least. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export function contextWindowFor(model: string, rules: readonly ContextWindowRule[] = CONTEXT_WINDOW_RULES): number {
  const bare = (model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model).toLowerCase();
  return rules.find((rule) => bare.startsWith(rule.modelPrefix))?.windowTokens ?? DEFAULT_CONTEXT_WINDOW;
}
