import { describe, expect, it } from 'vitest';
import { convertPersistedBlock } from '../../providers/anthropic/convert-blocks.js';
import { charsPerTokenCounter } from '../../providers/shared/chars-token-counter.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

/**
 * `Object.isFrozen` is shallow. A caller's frozen block may hold an object that is not frozen and
 * edit it in place between requests; every memo keyed by a frozen value must then read the new
 * contents, exactly as it reads a JSON copy of the body.
 */

function shallowFrozenToolUse(input: Record<string, unknown>) {
  return Object.freeze({ type: 'tool_use', id: 'toolu_1', name: 'read', input });
}

function bodyOf(messages: readonly unknown[]) {
  return { model: 'claude-sonnet-4-5', max_tokens: 100, system: [{ type: 'text', text: 'system' }], messages };
}

const plainUnits = (body: unknown) => JSON.stringify(normalizeAnthropicBody(JSON.parse(JSON.stringify(body))).units);

describe('memos keyed by frozen values read what a shallow-frozen block holds now', () => {
  it('normalisation: a frozen message and content array whose tool input is edited in place', () => {
    const input: Record<string, unknown> = { path: 'a.ts' };
    const opening = Object.freeze({ role: 'user', content: Object.freeze([Object.freeze({ type: 'text', text: 'Begin.' })]) });
    const call = Object.freeze({ role: 'assistant', content: Object.freeze([shallowFrozenToolUse(input)]) });
    const first = bodyOf([opening, call]);
    expect(JSON.stringify(normalizeAnthropicBody(first).units)).toBe(plainUnits(first));
    input.path = 'a-much-longer-path/that/changed.ts';
    const second = bodyOf([opening, call]);
    expect(JSON.stringify(normalizeAnthropicBody(second).units)).toBe(plainUnits(second));
    expect(JSON.stringify(normalizeAnthropicBody(second).units)).toContain('changed.ts');
  });

  it('the chars counter counts the block as it is now', () => {
    const input: Record<string, unknown> = { path: 'a.ts' };
    const block = shallowFrozenToolUse(input);
    const counter = charsPerTokenCounter(4);
    const before = counter.countBlock(block as never);
    input.path = 'x'.repeat(400);
    expect(counter.countBlock(block as never)).toBeGreaterThan(before + 90);
  });

  it('the Anthropic converter converts the block as it is now', () => {
    const input: Record<string, unknown> = { path: 'a.ts' };
    const block = shallowFrozenToolUse(input);
    const first = convertPersistedBlock(block as never, 'history[0].content[0]');
    expect(first).toMatchObject({ input: { path: 'a.ts' } });
    input.path = 'b.ts';
    expect(convertPersistedBlock(block as never, 'history[0].content[0]')).toMatchObject({ input: { path: 'b.ts' } });
  });
});
