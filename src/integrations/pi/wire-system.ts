import { ValidationError } from '../../model/errors.js';
import type { TokenCounter } from '../../tokens/token-counter.js';

/**
 * The texts of a Messages API `system` (a string, or text blocks): one per block. A block that
 * is not text makes the whole system unreadable for `volatile: 'auto'` (a `ValidationError`,
 * reported; the payload goes out as built).
 */
export function wireSystemTexts(system: unknown): string[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return [system];
  if (!Array.isArray(system)) throw new ValidationError('payload.system', 'a string or text blocks', `got ${typeof system}`);
  return system.map((block, index) => {
    const text = (block as { type?: unknown; text?: unknown } | null)?.text;
    if ((block as { type?: unknown } | null)?.type !== 'text' || typeof text !== 'string') {
      throw new ValidationError(`payload.system[${index}]`, 'a text block');
    }
    return text;
  });
}

/** The body with its system texts replaced in order (block fields kept); blocks left empty are dropped, and `system` with them. */
export function withWireSystemTexts(body: Record<string, unknown>, texts: readonly string[]): Record<string, unknown> {
  const { system, ...rest } = body;
  if (typeof system === 'string') return texts[0] ? { ...rest, system: texts[0] } : rest;
  if (!Array.isArray(system)) return body;
  const blocks = system.flatMap((block, index) =>
    texts[index] ? [{ ...(block as Record<string, unknown>), text: texts[index] }] : [],
  );
  return blocks.length > 0 ? { ...rest, system: blocks } : rest;
}

/** Estimated tokens of a Messages API history (text, tool inputs and results; images not counted). */
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
