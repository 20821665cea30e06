import { describe, expect, it } from 'vitest';
import { deepFreeze, isDeepFrozen } from '../../model/freeze.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

/**
 * Attacks on the memos that trust deep-frozen wire blocks (the block-core memo, and 91bdf5c's
 * marker-moved core): the previous last message, sent again without its
 * marker, takes the core the session's last body computed when the two blocks are "the same JSON
 * but for the marker". A library caller's frozen blocks may hold values whose JSON is not their
 * own keys: a `Date` (JSON: its ISO string, keys: none). Reference: the
 * normalisation of each body's JSON copy, where such values are already their JSON.
 */

type Block = Record<string, unknown>;
const marker = { type: 'ephemeral' };
const opening = deepFreeze({ role: 'user', content: [{ type: 'text', text: 'Book the meeting.' }] });
const fresh = (value: unknown) => normalizeAnthropicBody(JSON.parse(JSON.stringify(value))).units;
/** Units as JSON (a unit's countable holds the block's own input object: a Date there prints as its JSON). */
const printed = (units: unknown) => JSON.stringify(units);
const body = (messages: unknown[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages });

describe('the previous last message, sent again without its marker, holding values whose JSON is not their keys', () => {
  it('a Date that changed between the bodies: the core is the new JSON', () => {
    const dateOn = (day: number) => new Date(Date.UTC(2026, 10, day));
    const toolUse = (day: number, marked: boolean): Block => ({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'book',
      input: { when: dateOn(day) },
      ...(marked ? { cache_control: marker } : {}),
    });
    const first = body([opening, deepFreeze({ role: 'assistant', content: [toolUse(1, true)] })]);
    const second = body([
      opening,
      deepFreeze({ role: 'assistant', content: [toolUse(2, false)] }),
      deepFreeze({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'booked' }] }),
    ]);
    normalizeAnthropicBody(first);
    expect(printed(normalizeAnthropicBody(second).units)).toBe(printed(fresh(second)));
  });
});

describe('a frozen block holding a Date, the Date changed in place (freezing a Date does not freeze its time)', () => {
  it('normalises the same body again to the new JSON', () => {
    const when = new Date(Date.UTC(2026, 10, 1));
    const sent = body([
      opening,
      deepFreeze({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'book', input: { when } }] }),
      deepFreeze({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'booked' }] }),
    ]);
    normalizeAnthropicBody(sent);
    when.setTime(Date.UTC(2026, 10, 2));
    expect(printed(normalizeAnthropicBody(sent).units)).toBe(printed(fresh(sent)));
  });
});

describe('isDeepFrozen and deepFreeze on values whose contents freezing does not fix', () => {
  it('never count a Date, a Map or a class instance, nor anything holding one, as deep-frozen', () => {
    class Point {
      constructor(public x: number) {}
    }
    for (const value of [new Date(0), new Map([[1, 2]]), new Point(1)]) {
      const holder = deepFreeze({ input: { value } });
      expect(isDeepFrozen(holder)).toBe(false);
      expect(isDeepFrozen(Object.freeze({ value: Object.freeze(value) }))).toBe(false);
    }
    const plain = deepFreeze({ input: { list: [1, { a: null }] }, nothing: Object.freeze(Object.create(null)) });
    expect(isDeepFrozen(plain)).toBe(true);
  });
});
