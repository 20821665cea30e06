import type { TokenCounter } from '../tokens/token-counter.js';

/** The part of a TokenCounter the skills code needs. */
export type TextTokenCounter = Pick<TokenCounter, 'countText'>;

/**
 * Fallback used only when no TokenCounter is given: about four characters a token, rounded up.
 * It overcounts o200k English by ~8% (DESIGN.md practical notes), which errs towards the budget.
 */
export const charsPerTokenEstimate: TextTokenCounter = {
  countText: (text: string) => Math.ceil(text.length / 4),
};
