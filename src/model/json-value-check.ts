import type { JsonValue } from './json.js';

/**
 * Deepest nesting accepted in JSON data from callers (tool inputs, tool schemas, skill
 * metadata). Real tool inputs and JSON Schemas stay far below it; a value nested 100,000 deep
 * would otherwise overflow the stack of every recursive walk after it (hashing, adapters).
 */
export const MAX_JSON_DEPTH = 256;
/** Most values (objects, arrays, scalars, counted per visit) accepted in one JSON value. */
export const MAX_JSON_NODES = 1_000_000;

const SHOWN_PATH_SEGMENTS = 12;

/** Why a value is not JSON data, and where (`path` relative to the value checked). */
export interface JsonProblem {
  path: PropertyKey[];
  message: string;
}

/**
 * The first reason `value` is not plain JSON data, or null when it is: BigInt, functions,
 * symbols, `undefined`, non-finite numbers, class instances (Date, Map, ...), circular
 * references, nesting deeper than `MAX_JSON_DEPTH`, or more than `MAX_JSON_NODES` values
 * (shared references counted at every use, as JSON would write them). Never recurses deeper
 * than the depth limit, so it is safe on hostile input.
 *
 * @example
 * findJsonProblem({ a: 1n }); // { path: ['a'], message: 'JSON data (found a BigInt, which JSON cannot represent)' }
 */
export function findJsonProblem(
  value: unknown,
  limits = { maxDepth: MAX_JSON_DEPTH, maxNodes: MAX_JSON_NODES },
): JsonProblem | null {
  const ancestors = new Set<object>();
  let nodes = 0;
  const path: PropertyKey[] = [];
  const visit = (current: unknown, depth: number): string | null => {
    nodes += 1;
    if (nodes > limits.maxNodes) return `at most ${limits.maxNodes} JSON values in all`;
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return null;
      case 'number':
        return Number.isFinite(current) ? null : `a finite number (found ${current}, which JSON cannot represent)`;
      case 'bigint':
        return 'JSON data (found a BigInt, which JSON cannot represent; convert it to a number or string)';
      case 'undefined':
        return 'JSON data (found undefined)';
      case 'function':
      case 'symbol':
        return `JSON data (found a ${typeof current})`;
      case 'object':
        break;
    }
    if (current === null) return null;
    const container = current as object;
    if (depth >= limits.maxDepth) return `JSON data nested at most ${limits.maxDepth} levels deep`;
    if (ancestors.has(container)) return 'JSON data without circular references';
    const isArray = Array.isArray(container);
    if (!isArray) {
      const prototype = Object.getPrototypeOf(container);
      if (prototype !== Object.prototype && prototype !== null) {
        return `a plain JSON object (found ${prototype?.constructor?.name ?? 'a class instance'})`;
      }
    }
    ancestors.add(container);
    const keys: PropertyKey[] = isArray
      ? Array.from({ length: (container as unknown[]).length }, (_, index) => index)
      : Object.keys(container);
    for (const key of keys) {
      path.push(key);
      const problem = visit((container as Record<PropertyKey, unknown>)[key], depth + 1);
      if (problem !== null) return problem;
      path.pop();
    }
    ancestors.delete(container);
    return null;
  };
  const problem = visit(value, 0);
  if (problem === null) return null;
  // A path hundreds of levels long would bury the message: keep its start and say how deep it went.
  if (path.length > SHOWN_PATH_SEGMENTS) {
    return { path: path.slice(0, SHOWN_PATH_SEGMENTS), message: `${problem} (at depth ${path.length}; path shortened)` };
  }
  return { path: [...path], message: problem };
}

/**
 * Deep copy of checked JSON data into fresh plain objects. Keys are defined as own data
 * properties, so a `"__proto__"` key parsed from JSON stays data (plain assignment would set
 * the prototype instead and drop the key from the wire body). Call only on values
 * `findJsonProblem` accepted: the recursion depth is bounded by `MAX_JSON_DEPTH`.
 */
export function copyJsonValue(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJsonValue);
  const copy: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: copyJsonValue(value[key] as JsonValue),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
