import { describe, expect, it } from 'vitest';
import { messageBlockPath } from './block-paths.js';
import { bodyWithUnitList, unitsOf } from './body-units.js';
import { ChunkedList } from './chunked-list.js';
import { flatJsonText, jsonText } from './json-helpers.js';
import { wireParamUnit } from './normalize-anthropic.js';
import type { NormalizedWireBody } from './wire-unit.js';

/** What a conversation's units keep: one path string per position, flat JSON texts, one accessor pair for every body. */
describe("what a body's units keep", () => {
  it('gives every position its path, written as a template would', () => {
    for (const [message, block] of [
      [0, 0],
      [12, 3],
      [70_000, 1],
      [5, 64],
    ] as const) {
      expect(messageBlockPath(message, block)).toBe(`messages[${message}].content[${block}]`);
      expect(messageBlockPath(message, block)).toBe(`messages[${message}].content[${block}]`);
    }
  });

  it('writes the same JSON text flattened', () => {
    const value = { type: 'text', text: 'word '.repeat(500), nested: { list: [1, 'two', null] } };
    expect(flatJsonText(value)).toBe(jsonText(value));
    expect(flatJsonText(undefined)).toBe('null');
  });

  const fields: Omit<NormalizedWireBody, 'units'> = {
    format: 'anthropic',
    model: 'claude-sonnet-4-5',
    automaticBreakpoint: null,
    warnings: [],
    retention: null,
    promptCacheMode: null,
  };
  const model = wireParamUnit('model', '"claude-sonnet-4-5"');
  const other = wireParamUnit('model', '"claude-opus-5"');

  it('reads each body its own units through the shared accessor, printed in normalisation order', () => {
    const first = bodyWithUnitList(fields, ChunkedList.of([model]));
    const second = bodyWithUnitList(fields, ChunkedList.of([other, model]));
    expect(first.units).toEqual([model]);
    expect(second.units).toEqual([other, model]);
    expect(first.units).toBe(first.units);
    expect(Object.keys(first)).toEqual([
      'format',
      'model',
      'units',
      'automaticBreakpoint',
      'warnings',
      'retention',
      'promptCacheMode',
    ]);
    expect(JSON.parse(JSON.stringify(second)).units).toHaveLength(2);
    expect({ ...first }.units).toEqual([model]);
  });

  it('replaces the list when units are assigned, for that body only', () => {
    const first = bodyWithUnitList(fields, ChunkedList.of([model]));
    const second = bodyWithUnitList(fields, ChunkedList.of([model]));
    first.units = [other];
    expect(first.units).toEqual([other]);
    expect(unitsOf(first).toArray()).toEqual([other]);
    expect(second.units).toEqual([model]);
    expect(unitsOf(second).toArray()).toEqual([model]);
  });
});
