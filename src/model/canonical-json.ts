import type { JsonValue } from './json.js';

/**
 * JSON with object keys sorted by UTF-16 code unit and no insignificant whitespace, so equal
 * values always give equal bytes (the key ordering rule of RFC 8785). Tool schemas and tool inputs go
 * through this before they reach a prefix: key order from `JSON.parse`, MCP servers or map
 * iteration must never change cached bytes.
 */
export function canonicalJson(value: JsonValue): string {
  return write(value);
}

function write(value: JsonValue): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`canonicalJson: ${value} is not representable in JSON`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(write).join(',')}]`;
  }
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const entry = value[key];
    if (entry === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${write(entry)}`);
  }
  return `{${parts.join(',')}}`;
}

/** Deep copy of a JSON value with keys in canonical order (for objects sent to SDKs). */
export function canonicalize<T extends JsonValue>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}
