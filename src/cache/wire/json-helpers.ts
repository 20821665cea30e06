/** Small helpers for reading untyped wire JSON without `any`. */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A shallow copy without the named keys (cache markers), keeping the body's key order. */
export function withoutKeys(value: JsonRecord, keys: readonly string[]): JsonRecord {
  // Most blocks carry no marker: the value itself then has the same keys in the same order.
  if (!keys.some((key) => Object.hasOwn(value, key))) return value;
  const copy: JsonRecord = {};
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    // Assigned (a plain data member, as `defineProperty` with every attribute true would make, at a
    // fraction of its cost: a client's newest block carries its marker), except `"__proto__"`: a
    // member parsed from JSON stays a member (assigning it would set the prototype and drop it from the text).
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: value[key], enumerable: true, writable: true, configurable: true });
    else copy[key] = value[key];
  }
  return copy;
}

/** JSON text of a value; `undefined` (an absent field) is written as `null`. */
export function jsonText(value: unknown): string {
  return value === undefined ? 'null' : (JSON.stringify(value) ?? 'null');
}

/**
 * `jsonText`, as one flat string: JSON.stringify builds a long text as a tree of concatenated
 * parts, and a unit's text is kept for its conversation's whole life (three or four heap objects
 * more per unit, copied by every scavenge until promoted). Converting the text to a number
 * flattens it in place (it is not a number: the result is NaN, and the scavenger drops the tree).
 */
export function flatJsonText(value: unknown): string {
  return flatString(jsonText(value));
}

/** `text` made one flat string in place (see `flatJsonText`); the same string. */
export function flatString(text: string): string {
  Number(text);
  return text;
}

export function stringField(record: JsonRecord, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' ? value : null;
}

/** The `model` field of a request body, or '' when it has none. */
export function modelOf(body: unknown): string {
  if (!isRecord(body)) return '';
  // Bedrock Converse names the model `modelId`.
  if (typeof body.model === 'string') return body.model;
  return typeof body.modelId === 'string' ? body.modelId : '';
}
