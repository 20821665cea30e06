import { BlockMemo } from './block-memo.js';
import { countableParts } from './countable-parts.js';
import { DEFAULT_MEDIA_TOKENS, type MediaTokenEstimates } from './media-token-estimates.js';
import type { CountableItem, TokenCounter } from './token-counter.js';

/**
 * A counter backed by a real tokenizer. `tokenize` returns the token count of a text; it is
 * only called for blocks not seen before (memoised per block hash).
 */
export function exactTokenCounter(
  name: string,
  tokenize: (text: string) => number,
  media: MediaTokenEstimates = DEFAULT_MEDIA_TOKENS,
): TokenCounter {
  const memo = new BlockMemo<number>();
  const countItem = (item: CountableItem): number => {
    const parts = countableParts(item, media);
    let total = parts.fixedTokens;
    for (const part of parts.texts) total += part.text.length === 0 ? 0 : tokenize(part.text);
    return total;
  };
  return {
    name,
    exact: true,
    countText: (text) => (text.length === 0 ? 0 : tokenize(text)),
    countBlock: (block) => memo.get(block, countItem),
  };
}
