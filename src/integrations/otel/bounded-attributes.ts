import type { Attributes, AttributeValue } from '@opentelemetry/api';

/** Longest string copied into a span attribute (model names, paths, causes): longer ones are cut and marked. */
export const MAX_ATTRIBUTE_CHARS = 256;
/** Most entries of an array attribute (breakpoints, warnings). */
export const MAX_ATTRIBUTE_ITEMS = 32;

/** A string fit for an attribute: at most `MAX_ATTRIBUTE_CHARS`, cut with `…` when longer. */
export function boundedText(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length <= MAX_ATTRIBUTE_CHARS ? text : `${text.slice(0, MAX_ATTRIBUTE_CHARS - 1)}…`;
}

/**
 * Attributes with every value fit for export: strings bounded, numbers finite (others left
 * out and named in the result's `rejected`), arrays bounded in length and items.
 */
export function boundedAttributes(attributes: Record<string, unknown>): { attributes: Attributes; rejected: string[] } {
  const result: Attributes = {};
  const rejected: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const bounded = boundedValue(value);
    if (bounded === undefined) rejected.push(key);
    else result[key] = bounded;
  }
  return { attributes: result, rejected };
}

function boundedValue(value: unknown): AttributeValue | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return boundedText(value);
  if (Array.isArray(value)) return value.slice(0, MAX_ATTRIBUTE_ITEMS).map((item) => boundedText(item));
  return undefined;
}
