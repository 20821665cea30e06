import { describe, expect, it } from 'vitest';
import { charsPerTokenCounter } from './chars-token-counter.js';

describe('charsPerTokenCounter', () => {
  it('counts four characters per token, rounding up, and fixed sizes for media', () => {
    const counter = charsPerTokenCounter();
    expect(counter.exact).toBe(false);
    expect(counter.countText('abcdefghi')).toBe(3);
    expect(counter.countBlock({ type: 'text', text: 'abcd' })).toBe(1);
    expect(counter.countBlock({ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } })).toBe(1600);
    expect(counter.countBlock({ name: 'ab', description: 'cd', inputSchema: { type: 'object' } })).toBe(
      Math.ceil((2 + 2 + 17) / 4),
    );
  });
});
