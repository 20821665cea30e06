import { describe, expect, it } from 'vitest';
import { wordCounter, words } from '../test-support/fixtures.js';
import { createCacheModel } from './create-cache-model.js';

describe('createCacheModel', () => {
  it('judges OpenRouter anthropic/* routes with Anthropic rules and other routes automatically', () => {
    const model = createCacheModel('openrouter', { counter: wordCounter });
    const anthropicRoute = {
      model: 'anthropic/claude-sonnet-4.5',
      messages: [
        { role: 'system', content: [{ type: 'text', text: words(1500), cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'hi' },
      ],
    };
    const first = model.judge(anthropicRoute, { at: 0 });
    expect(first.cacheWrite5mTokens).toBe(1500); // a write: only Anthropic rules bill writes
    expect(model.judge(anthropicRoute, { at: 60_000 })).toMatchObject({ index: 1, cacheReadTokens: 1500 });
    const otherRoute = {
      model: 'openai/gpt-4.1',
      messages: [
        { role: 'system', content: words(1500) },
        { role: 'user', content: 'hi' },
      ],
    };
    expect(model.judge(otherRoute, { at: 0 })).toMatchObject({ index: 2, cacheWriteTokens: 0, cacheReadTokens: 0 });
    expect(model.judge(otherRoute, { at: 60_000 }).cacheReadTokens).toBe(1408); // 1,503 + 4 shared → 1,024 + 3 × 128
  });

  it('returns the model for each provider', () => {
    expect(createCacheModel('anthropic').rules).toBe('anthropic');
    expect(createCacheModel('openai-chat').rules).toBe('openai');
    expect(createCacheModel('openai-responses').rules).toBe('openai');
    expect(createCacheModel('openai-compatible').rules).toBe('local');
  });
});
