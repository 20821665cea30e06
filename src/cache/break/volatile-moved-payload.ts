import type { VolatileMovedPayload } from '../../events/catalog.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { MovedParagraph } from './volatile-system.js';

/**
 * The `volatile.moved` payload of one call (without its turn and step), shared by the drop-ins
 * and `cachet proxy --plan --volatile auto`: each moved paragraph's path, cause, how it was found,
 * tokens and an excerpt, and `savedTokens` — the static system text after the first moved
 * paragraph whose text changed since the previous call, plus the history before this call
 * (`historyTokens`, asked only then): what that change would have made the call write again.
 */
export function volatileMovedPayload(
  moved: readonly MovedParagraph[],
  texts: readonly string[],
  counter: TokenCounter,
  historyTokens: () => number,
): Omit<VolatileMovedPayload, 'turn' | 'step'> {
  const firstChanged = moved.find((entry) => entry.changedSinceMoved);
  let savedTokens = 0;
  if (firstChanged) {
    const movedTexts = new Set(moved.map((entry) => entry.text));
    // The static text after the first changed paragraph: in its own text, then the later texts.
    const after = [
      texts[firstChanged.block]!.slice(texts[firstChanged.block]!.indexOf(firstChanged.text) + firstChanged.text.length),
      ...texts.slice(firstChanged.block + 1),
    ]
      .join('\n\n')
      .split(/\n[ \t]*\n/)
      .filter((paragraph) => !movedTexts.has(paragraph))
      .join('\n\n');
    savedTokens = counter.countText(after) + historyTokens();
  }
  return {
    moved: moved.map((entry) => ({
      path: `system[${entry.block}].paragraph[${entry.paragraph}]`,
      cause: entry.cause,
      detectedBy: entry.detectedBy,
      tokens: counter.countText(entry.text),
      excerpt: entry.text.slice(0, 80),
    })),
    savedTokens,
  };
}

/** Estimated tokens of a Messages API history (text, thinking, tool inputs and results; images not counted). */
export function wireHistoryTokens(messages: readonly unknown[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (typeof content === 'string') total += counter.countText(content);
    if (!Array.isArray(content)) continue;
    for (const block of content as Array<Record<string, unknown>>) {
      const value = block?.text ?? block?.thinking ?? block?.input ?? block?.content;
      if (value !== undefined && block?.type !== 'image') {
        total += counter.countText(typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
  }
  return total;
}
