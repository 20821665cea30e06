import type { ContentBlock, ToolDefinition } from '../model/content.js';

/** Kind of text, for estimators whose characters-per-token ratio depends on it. */
export type ContentKind = 'prose' | 'code' | 'json';

/** Anything Cachet counts as one unit: a content block, a tool definition, a system segment or tail item. */
export type CountableItem = ContentBlock | ToolDefinition | { zone: string; text: string } | { kind: string; text: string };

/**
 * Counts tokens for one model family. `exact` is true when a real tokenizer is used and false
 * for calibrated estimates (Anthropic's tokenizer is not public).
 */
export interface TokenCounter {
  readonly name: string;
  readonly exact: boolean;
  /**
   * Changes whenever the counter's results change for the same input (an estimator that was
   * re-calibrated). Memos keyed on a counter include it; exact counters leave it undefined.
   */
  readonly revision?: number;
  countText(text: string, kind?: ContentKind): number;
  /**
   * Texts an exact counter counted in bounded pieces (runs of over `MAX_RUN_CHARS` characters
   * without whitespace), so their counts are close but not exact. Estimators leave it undefined.
   */
  readonly approximated?: number;
  /** `countText` with whether this count is exact (false for estimators and for cut texts). */
  measureText?(text: string, kind?: ContentKind): { tokens: number; exact: boolean };
  /** Tokens of one block, memoised per block hash. */
  countBlock(block: CountableItem): number;
}
