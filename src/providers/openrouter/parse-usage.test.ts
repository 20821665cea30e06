import { describe, expect, it } from 'vitest';
import { openRouterUpstream, parseOpenRouterUsage } from './parse-usage.js';

// The usage-accounting page's example (openrouter.ai/docs, checked 2026-11-21), on an Anthropic route,
// with the prompt-caching guide's `cache_discount` at the top level of the response.
const COMPLETION = {
  id: 'gen-123',
  object: 'chat.completion',
  model: 'anthropic/claude-sonnet-4.5',
  provider: 'Anthropic',
  choices: [],
  cache_discount: -0.0003,
  usage: {
    completion_tokens: 2,
    completion_tokens_details: { reasoning_tokens: 0 },
    cost: 0.95,
    cost_details: { upstream_inference_cost: 19 },
    prompt_tokens: 194,
    prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100, audio_tokens: 0 },
    total_tokens: 196,
  },
};

describe('parseOpenRouterUsage', () => {
  it('reports cached tokens, cache writes, cost and cache_discount', () => {
    expect(parseOpenRouterUsage(COMPLETION)).toEqual({
      uncachedInputTokens: 94,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 100,
      cacheWrite1hTokens: 0,
      outputTokens: 2,
      reasoningTokens: 0,
      cacheDiscount: -0.0003,
      cost: 0.95,
      raw: { usage: COMPLETION.usage, cache_discount: -0.0003 },
    });
  });

  it('reads a cache hit on an automatically caching route, without cache_discount', () => {
    const usage = {
      prompt_tokens: 3000,
      completion_tokens: 20,
      total_tokens: 3020,
      prompt_tokens_details: { cached_tokens: 2816 },
    };
    expect(parseOpenRouterUsage({ usage })).toMatchObject({
      uncachedInputTokens: 184,
      cacheReadTokens: 2816,
      cacheDiscount: null,
      cost: null,
      raw: usage,
    });
  });

  it('names a malformed cache_discount', () => {
    expect(() => parseOpenRouterUsage({ ...COMPLETION, cache_discount: 'cheap' })).toThrowError(/cache_discount/);
  });
});

describe('openRouterUpstream', () => {
  it('reads the upstream the response names, or null', () => {
    expect(openRouterUpstream({ id: 'gen-1', provider: 'Amazon Bedrock', usage: {} })).toBe('Amazon Bedrock');
    expect(openRouterUpstream({ id: 'gen-1' })).toBeNull();
    expect(() => openRouterUpstream({ provider: 42 })).toThrow(/provider/);
  });
});
