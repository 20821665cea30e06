import { canonicalJson } from '../../model/canonical-json.js';
import { isDeepFrozen } from '../../model/freeze.js';
import type { JsonValue } from '../../model/json.js';
import { assertNever } from '../../model/validate.js';
import type { CountableItem, TokenCounter } from '../../tokens/token-counter.js';

/** Fixed guesses for media, whose size in tokens depends on pixels and pages we do not read. */
const IMAGE_TOKENS = 1_600;
const DOCUMENT_TOKENS = 1_500;

/**
 * Counts of frozen items (persisted blocks, which cannot change) per chars-per-token ratio: an
 * adapter without a counter creates this one per request, and tool inputs and schemas are
 * measured through their canonical JSON.
 */
const frozenCounts = new Map<number, WeakMap<object, number>>();

/**
 * The fallback estimate adapters use when the caller passes no `TokenCounter`: one token per
 * four UTF-16 code units (the seed spec's heuristic). It undercounts English prose for Claude
 * models by roughly a quarter (seed spec §5.1 measured 1.26× more actual tokens), which is why
 * padding targets carry a margin above the floor. Pass a calibrated counter when you have one.
 *
 * @example
 * charsPerTokenCounter().countText('abcdefgh'); // 2
 */
export function charsPerTokenCounter(charsPerToken = 4): TokenCounter {
  const count = (chars: number) => Math.ceil(chars / charsPerToken);
  const countItem = (item: CountableItem): number => {
    if (!('type' in item)) {
      if ('name' in item)
        return count(item.name.length + item.description.length + canonicalJson(item.inputSchema as JsonValue).length);
      return count(item.text.length);
    }
    switch (item.type) {
      case 'text':
        return count(item.text.length);
      case 'image':
        return IMAGE_TOKENS;
      case 'document':
        return item.source.kind === 'text' ? count(item.source.data.length) : DOCUMENT_TOKENS;
      case 'tool_use':
        return count(item.name.length + canonicalJson(item.input).length);
      case 'tool_result':
        return item.content.reduce((sum, inner) => sum + (inner.type === 'text' ? count(inner.text.length) : IMAGE_TOKENS), 0);
      case 'thinking':
        return count(item.thinking.length);
      case 'redacted_thinking':
        return count(item.data.length);
      default:
        return assertNever(item);
    }
  };
  let frozen = frozenCounts.get(charsPerToken);
  if (!frozen) {
    frozen = new WeakMap();
    frozenCounts.set(charsPerToken, frozen);
  }
  const known = frozen;
  return {
    name: `chars/${charsPerToken}`,
    exact: false,
    countText: (text) => count(text.length),
    countBlock: (item) => {
      if (!isDeepFrozen(item)) return countItem(item);
      let tokens = known.get(item);
      if (tokens === undefined) {
        tokens = countItem(item);
        known.set(item, tokens);
      }
      return tokens;
    },
  };
}
