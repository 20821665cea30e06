import { describe, expect, it } from 'vitest';
import { formatTokens } from '../models/cache-verdict.js';
import { BlockCoreMemo } from './block-core-memo.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

const body = (texts: string[], extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  tools: [{ name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: {} } }],
  system: [{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }],
  messages: texts.map((text, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text, ...(index === texts.length - 1 ? extra : {}) }],
  })),
});

describe('BlockCoreMemo: a conversation’s next body reuses what equal blocks gave', () => {
  it('gives the same units as normalising without it, for equal, changed, re-ordered and re-marked blocks', () => {
    const memo = new BlockCoreMemo();
    const bodies = [
      body(['hi', 'hello'], { cache_control: { type: 'ephemeral' } }),
      body(['hi', 'hello', 'more'], { cache_control: { type: 'ephemeral' } }),
      // The second message edited at the same position: its new text must be read.
      body(['hi', 'HELLO', 'more']),
      // Same text, keys in another order: different bytes on the wire.
      { ...body(['hi']), messages: [{ role: 'user', content: [{ text: 'hi', type: 'text' }] }] },
      // A tool_use whose nested input changes.
      {
        ...body([]),
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'a' } }] }],
      },
      {
        ...body([]),
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'b' } }] }],
      },
    ];
    for (const next of bodies) {
      const copy = JSON.parse(JSON.stringify(next));
      expect(normalizeAnthropicBody(copy, memo)).toEqual(normalizeAnthropicBody(JSON.parse(JSON.stringify(next))));
    }
  });

  it('shares the unit text of an equal block between successive bodies', () => {
    const memo = new BlockCoreMemo();
    const first = normalizeAnthropicBody(JSON.parse(JSON.stringify(body(['hi', 'hello']))), memo);
    const second = normalizeAnthropicBody(JSON.parse(JSON.stringify(body(['hi', 'hello', 'more']))), memo);
    const hello = (units: typeof first.units) => units.find((unit) => unit.path === 'messages[1].content[0]');
    expect(hello(second.units)?.text).toBe(hello(first.units)?.text);
    expect(hello(second.units)?.countable).toBe(hello(first.units)?.countable);
  });
});

describe('formatTokens', () => {
  it('groups whole numbers as en-US does', () => {
    for (const value of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, -1, -1234, 9_007_199_254_740_991, -0, 1.5, 1234.5678]) {
      expect(formatTokens(value)).toBe(value.toLocaleString('en-US'));
    }
  });
});
