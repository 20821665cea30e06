import type { ContentBlock, ToolDefinition } from '../model/content.js';

/** Kind of text, for estimators whose characters-per-token ratio depends on it. */
export type ContentKind = 'prose' | 'code' | 'json';

/**
 * Counts tokens for one model family. `exact` is true when a real tokenizer is used and false
 * for calibrated estimates (Anthropic's tokenizer is not public).
 */
export interface TokenCounter {
  readonly name: string;
  readonly exact: boolean;
  countText(text: string, kind?: ContentKind): number;
  /** Tokens of one block, memoised per block hash. */
  countBlock(block: ContentBlock | ToolDefinition | { zone: string; text: string }): number;
}
