import { describe, expect, it } from 'vitest';
import { withoutKeys } from './json-helpers.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

describe('withoutKeys', () => {
  it('keeps a member named "__proto__" as a member (JSON data, not a prototype)', () => {
    const block = JSON.parse(
      '{"__proto__":{"cache_control":{"type":"ephemeral"}},"type":"text","text":"x","cache_control":{"type":"ephemeral"}}',
    );
    const copy = withoutKeys(block, ['cache_control']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"cache_control":{"type":"ephemeral"}},"type":"text","text":"x"}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy.cache_control).toBeUndefined();
  });

  it("copies every other member as a plain data member, in the body's order", () => {
    const block = Object.freeze({ type: 'text', cache_control: { type: 'ephemeral' }, text: 'x', citations: null });
    const copy = withoutKeys(block, ['cache_control']);
    expect(Object.keys(copy)).toEqual(['type', 'text', 'citations']);
    expect(Object.getOwnPropertyDescriptor(copy, 'text')).toEqual({
      value: 'x',
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(Object.isFrozen(copy)).toBe(false);
    expect(withoutKeys(block, ['absent'])).toBe(block);
  });

  it('a marked block and the same block unmarked have the same unit text (a marker moving is no change)', () => {
    const text = (marked: boolean) =>
      normalizeAnthropicBody({
        model: 'claude-sonnet-4-5',
        messages: [
          {
            role: 'user',
            content: [
              JSON.parse(
                `{"__proto__":{"a":1},"type":"text","text":"hello"${marked ? ',"cache_control":{"type":"ephemeral"}' : ''}}`,
              ),
            ],
          },
        ],
      }).units.at(-1)!.text;
    expect(text(true)).toBe(text(false));
    expect(text(true)).toContain('"__proto__"');
  });
});
