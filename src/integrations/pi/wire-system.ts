import { ValidationError } from '../../model/errors.js';

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
