import { describe, expect, it } from 'vitest';
import { deepFreeze, freezeOverDeepFrozen, isDeepFrozen } from './freeze.js';

describe('isDeepFrozen', () => {
  it('is false for a frozen object holding one that is not, at any depth', () => {
    const block = Object.freeze({ type: 'tool_use', input: { path: 'a.ts' } });
    expect(Object.isFrozen(block)).toBe(true);
    expect(isDeepFrozen(block)).toBe(false);
    const deeper = Object.freeze({ content: Object.freeze([Object.freeze({ parts: [1] })]) });
    expect(isDeepFrozen(deeper)).toBe(false);
  });

  it('is true once every member is frozen, and stays true (remembered)', () => {
    const input = { path: 'a.ts', lines: [1, 2] };
    const block = Object.freeze({ type: 'tool_use', input });
    expect(isDeepFrozen(block)).toBe(false);
    Object.freeze(input.lines);
    Object.freeze(input);
    expect(isDeepFrozen(block)).toBe(true);
    expect(isDeepFrozen(block)).toBe(true);
  });

  it('is true for primitives and for what deepFreeze returns, cycles included', () => {
    expect(isDeepFrozen('text')).toBe(true);
    expect(isDeepFrozen(null)).toBe(true);
    const cyclic: { self?: unknown; data: number[] } = { data: [1] };
    cyclic.self = cyclic;
    expect(isDeepFrozen(deepFreeze(cyclic))).toBe(true);
  });

  it('does not remember a member of a failed walk as deep-frozen (a frozen cycle through an open object)', () => {
    const open: { back?: unknown } = {};
    const inner = Object.freeze({ open });
    open.back = inner;
    const outer = Object.freeze({ inner });
    expect(isDeepFrozen(outer)).toBe(false);
    expect(isDeepFrozen(inner)).toBe(false);
  });
});

describe('deepFreeze', () => {
  it('freezes inside an object that was frozen only at its top', () => {
    const input = { path: 'a.ts' };
    const block = deepFreeze(Object.freeze({ type: 'tool_use', input }));
    expect(Object.isFrozen(input)).toBe(true);
    expect(isDeepFrozen(block)).toBe(true);
  });
});

describe('freezeOverDeepFrozen', () => {
  it('freezes a value built bottom-up and remembers it without walking it again', () => {
    const members = deepFreeze({ text: 'x' });
    const value = freezeOverDeepFrozen({ members });
    expect(Object.isFrozen(value)).toBe(true);
    expect(isDeepFrozen(value)).toBe(true);
  });

  it('marks what it freezes invisibly: keys, JSON, spreads, Object.assign and equality see the plain value', () => {
    const value = freezeOverDeepFrozen({ type: 'text', text: 'x' });
    const list = freezeOverDeepFrozen([value]);
    expect(Object.keys(value)).toEqual(['type', 'text']);
    expect(Reflect.ownKeys(value)).toEqual(['type', 'text']);
    expect(Reflect.ownKeys(list)).toEqual(['0', 'length']);
    expect(JSON.stringify(list)).toBe('[{"type":"text","text":"x"}]');
    expect(Object.getOwnPropertySymbols({ ...value })).toEqual([]);
    expect(Object.getOwnPropertySymbols(Object.assign({}, value))).toEqual([]);
    expect(value).toStrictEqual({ type: 'text', text: 'x' });
    expect(list).toStrictEqual([{ type: 'text', text: 'x' }]);
    expect(isDeepFrozen(list)).toBe(true);
  });

  it('remembers a value that can no longer take a mark (already sealed), and one inherited mark is not its own', () => {
    const sealed = freezeOverDeepFrozen(Object.preventExtensions({ text: 'x' }));
    expect(Object.isFrozen(sealed)).toBe(true);
    expect(isDeepFrozen(sealed)).toBe(true);
    // An object whose prototype is deep-frozen is not: it can still change.
    const child = Object.create(freezeOverDeepFrozen({ text: 'x' })) as { text: string; added?: string };
    expect(isDeepFrozen(child)).toBe(false);
    child.added = 'y';
    expect(child.added).toBe('y');
  });
});
