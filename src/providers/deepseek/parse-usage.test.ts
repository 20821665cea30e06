import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { parseDeepSeekUsage } from './parse-usage.js';

describe('parseDeepSeekUsage', () => {
  it('maps hits to reads and misses to uncached input, with no writes', () => {
    expect(
      parseDeepSeekUsage({
        usage: {
          prompt_tokens: 900,
          prompt_cache_hit_tokens: 768,
          prompt_cache_miss_tokens: 132,
          completion_tokens: 50,
          completion_tokens_details: { reasoning_tokens: 30 },
        },
      }),
    ).toMatchObject({
      uncachedInputTokens: 132,
      cacheReadTokens: 768,
      cacheWrite5mTokens: 0,
      outputTokens: 50,
      reasoningTokens: 30,
    });
  });

  it('derives misses from the prompt when only hits are reported', () => {
    expect(parseDeepSeekUsage({ prompt_tokens: 100, prompt_cache_hit_tokens: 64 }).uncachedInputTokens).toBe(36);
  });

  it('names a bad field', () => {
    expect(() => parseDeepSeekUsage({ usage: { prompt_cache_hit_tokens: -1 } })).toThrow(ValidationError);
  });
});
