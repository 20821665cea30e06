import { expect, it } from 'vitest';
import { createAnthropicCacheModel } from './anthropic-cache-model.js';

// A model with reuseEqualBlocks keeps each body's block cores by position and reuses one for an
// equal block in the next body. The comparison must be with the block as it was when its core was
// made: a caller may edit its own (unfrozen) block in place after a judge, then send it again or
// send a fresh copy of the edited block.
const body = (block: Record<string, unknown>) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  system: 'sys',
  messages: [{ role: 'user', content: [block] }],
});
const plainCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

it.each([
  ['sent again', (block: Record<string, unknown>) => block],
  ['sent as a fresh copy', plainCopy],
])('a block edited in place after its judge, then %s, is read as it is now', (_, edited) => {
  const fast = createAnthropicCacheModel({ reuseEqualBlocks: true });
  const plain = createAnthropicCacheModel();
  const block: Record<string, unknown> = { type: 'text', text: 'short question' };
  const first = body(block);
  expect(fast.judge(first, { at: 0 }).inputTokens).toBe(plain.judge(plainCopy(first), { at: 0 }).inputTokens);
  block.text = 'a much longer question '.repeat(50);
  const second = body(edited(block));
  const judged = fast.judge(second, { at: 1000 });
  expect(judged.inputTokens).toBe(plain.judge(plainCopy(second), { at: 1000 }).inputTokens);
  expect(judged.inputTokens).toBeGreaterThan(200);
});
