import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { blockCore } from './anthropic-block-core.js';
import { knownCore } from './block-core-memo.js';
import { messageBlockPath } from './block-paths.js';
import { bodyWithUnitList, unitsOf } from './body-units.js';
import { ChunkedList } from './chunked-list.js';
import { flatJsonText, jsonText } from './json-helpers.js';
import { normalizeAnthropicBody, wireParamUnit } from './normalize-anthropic.js';
import type { NormalizedWireBody, WireUnit } from './wire-unit.js';

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

  it("keeps a frozen message's block cores in its shared units only (no core and no WeakMap entry per block)", () => {
    const first = deepFreeze({ role: 'user', content: [{ type: 'text', text: 'Read the report.' }] });
    const marked = deepFreeze({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.', cache_control: { type: 'ephemeral' } }],
    });
    const unmarked = deepFreeze({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    const next = deepFreeze({ role: 'user', content: [{ type: 'text', text: 'Thanks.' }] });
    const before = normalizeAnthropicBody({ model: 'claude-sonnet-4-5', messages: [first, marked] }).units;
    const after = normalizeAnthropicBody({ model: 'claude-sonnet-4-5', messages: [first, unmarked, next] }).units;
    for (const block of [first.content[0]!, marked.content[0]!, unmarked.content[0]!, next.content[0]!]) {
      // Nothing remembered for the block itself: each look-up computes a new, equal core.
      expect(knownCore(block, blockCore)).not.toBe(knownCore(block, blockCore));
    }
    // The re-sent message without its marker still takes the last body's unit fields (one text string, one countable).
    expect(after[after.length - 2]!.text).toBe(before[before.length - 1]!.text);
    expect(after[after.length - 2]!.countable).toBe(before[before.length - 1]!.countable);
    expect(after[after.length - 2]!.breakpoint).toBeNull();
  });

  it('gives successive bodies the same model and key-parameter units while their values repeat', () => {
    const bodyOf = (model: string) => ({ model, tool_choice: { type: 'auto' }, messages: [{ role: 'user', content: 'Hi.' }] });
    const first = normalizeAnthropicBody(bodyOf('claude-sonnet-4-5')).units;
    const second = normalizeAnthropicBody(bodyOf('claude-sonnet-4-5')).units;
    const other = normalizeAnthropicBody(bodyOf('claude-opus-4-1')).units;
    const params = (units: WireUnit[]) => units.filter((unit) => unit.zone === 'params');
    expect(params(first).length).toBeGreaterThan(1);
    for (const [index, unit] of params(first).entries()) expect(params(second)[index]).toBe(unit);
    expect(params(other)[0]).not.toBe(params(first)[0]);
    expect(params(other)[0]!.text).toBe('"claude-opus-4-1"');
    expect(normalizeAnthropicBody(bodyOf('claude-sonnet-4-5')).units).toEqual(first);
  });
});
