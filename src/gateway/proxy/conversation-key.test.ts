import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { conversationKey } from './conversation-key.js';

const sha = (text: string) => `prefix-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
const body = (text: string) => ({
  model: 'm',
  messages: [{ role: 'user', content: text, cache_control: { type: 'ephemeral' } }],
});

describe('conversationKey: the opening message hash', () => {
  it('is the SHA-256 of the opening message without markers, asked again and again, for openings of one length and a long one', () => {
    const openings = ['first conversation', 'other conversation', 'x'.repeat(5000)];
    for (let round = 0; round < 3; round++) {
      for (const text of openings) {
        expect(conversationKey('anthropic', body(text), null)).toEqual({
          id: sha(JSON.stringify({ role: 'user', content: text })),
          source: 'prefix-hash',
        });
      }
    }
  });

  it('prefers the header, then metadata.user_id (Anthropic) or prompt_cache_key (OpenAI)', () => {
    expect(conversationKey('anthropic', body('a'), 'h-1')).toEqual({ id: 'h-1', source: 'header' });
    expect(conversationKey('anthropic', { ...body('a'), metadata: { user_id: 'u' } }, null).id).toBe('u');
    expect(conversationKey('openai-chat', { ...body('a'), prompt_cache_key: 'k' }, null).id).toBe('k');
  });
});
