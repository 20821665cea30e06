import { BlockMemo } from './block-memo.js';
import { boundedPieces } from './bounded-pieces.js';
import { countableParts } from './countable-parts.js';
import { DEFAULT_MEDIA_TOKENS, type MediaTokenEstimates } from './media-token-estimates.js';
import type { CountableItem, TokenCounter } from './token-counter.js';

/**
 * A counter backed by a real tokenizer. `tokenize` returns the token count of a text; it is
 * only called for blocks not seen before (memoised per block hash). Long runs without
 * whitespace reach `tokenize` in bounded pieces (`boundedPieces`), so no text can make
 * counting super-linear; such counts are approximate and counted in `approximated`.
 */
export function exactTokenCounter(
  name: string,
  tokenize: (text: string) => number,
  media: MediaTokenEstimates = DEFAULT_MEDIA_TOKENS,
): TokenCounter {
  const memo = new BlockMemo<number>();
  let approximated = 0;
  const measure = (text: string): { tokens: number; exact: boolean } => {
    if (text.length === 0) return { tokens: 0, exact: true };
    const { pieces, cut } = boundedPieces(text);
    if (!cut) return { tokens: tokenize(text), exact: true };
    approximated++;
    let tokens = 0;
    for (const piece of pieces) tokens += tokenize(piece);
    return { tokens, exact: false };
  };
  const countItem = (item: CountableItem): number => {
    const parts = countableParts(item, media);
    let total = parts.fixedTokens;
    for (const part of parts.texts) total += measure(part.text).tokens;
    return total;
  };
  return {
    name,
    exact: true,
    get approximated() {
      return approximated;
    },
    countText: (text) => measure(text).tokens,
    measureText: measure,
    countBlock: (block) => memo.get(block, countItem),
  };
}
