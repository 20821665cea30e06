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
});
