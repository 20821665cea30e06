import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalJson } from './canonical-json.js';
import type { JsonValue } from './json.js';
import { propertyRuns } from './test-support/property-runs.js';

function reverseKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, inner]) => [key, reverseKeys(inner)]),
  );
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    const value = { b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } };
    expect(canonicalJson(value)).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('sorts by UTF-16 code unit, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, é: 3, a: 4, _: 5 })).toBe('{"B":2,"_":5,"a":4,"b":1,"é":3}');
  });

  it('drops undefined members like JSON.stringify and refuses non-finite numbers', () => {
    expect(canonicalJson({ a: undefined, b: 1 } as unknown as JsonValue)).toBe('{"b":1}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(TypeError);
  });

  it('gives the same bytes whatever the key insertion order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const json = value as JsonValue;
        expect(canonicalJson(reverseKeys(json))).toBe(canonicalJson(json));
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('round-trips through JSON.parse to an equal value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(canonicalJson(value as JsonValue));
        expect(canonicalJson(parsed)).toBe(canonicalJson(value as JsonValue));
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('canonicalize returns a copy whose key order is canonical', () => {
    const copy = canonicalize({ z: 1, a: { y: 1, b: 2 } });
    expect(Object.keys(copy)).toEqual(['a', 'z']);
    expect(Object.keys(copy.a)).toEqual(['b', 'y']);
  });
});
