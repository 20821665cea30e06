import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { parseOpenAIChatUsage } from './parse-usage.js';

// Shape of the prompt-caching guide's example response (developers.openai.com, checked 2026-11-21).
const CHAT_COMPLETION = {
  id: 'chatcmpl-123',
  object: 'chat.completion',
  created: 1_763_700_000,
  model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: {
    prompt_tokens: 2006,
    completion_tokens: 300,
    total_tokens: 2306,
    prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
};

describe('parseOpenAIChatUsage', () => {
  it('splits prompt_tokens into cached reads and the uncached rest, keeping the raw usage', () => {
    expect(parseOpenAIChatUsage(CHAT_COMPLETION)).toEqual({
      uncachedInputTokens: 86,
      cacheReadTokens: 1920,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 300,
      reasoningTokens: 0,
      raw: CHAT_COMPLETION.usage,
    });
  });

  it('reads cache_write_tokens (GPT-5.6+) and reasoning tokens; accepts the usage object alone', () => {
    const usage = {
      prompt_tokens: 5000,
      completion_tokens: 700,
      total_tokens: 5700,
      prompt_tokens_details: { cached_tokens: 3072, cache_write_tokens: 1800 },
      completion_tokens_details: { reasoning_tokens: 512 },
    };
    expect(parseOpenAIChatUsage(usage)).toMatchObject({
      uncachedInputTokens: 128,
      cacheReadTokens: 3072,
      cacheWrite5mTokens: 1800,
      reasoningTokens: 512,
    });
  });

  it('treats missing details as zero cached tokens', () => {
    expect(parseOpenAIChatUsage({ usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } })).toMatchObject({
      uncachedInputTokens: 12,
      cacheReadTokens: 0,
      outputTokens: 3,
    });
  });

  it('names the field when the shape is wrong', () => {
    expect(() => parseOpenAIChatUsage({ usage: { completion_tokens: 3 } })).toThrowError(ValidationError);
    expect(() => parseOpenAIChatUsage({ usage: { completion_tokens: 3 } })).toThrowError(/usage\.prompt_tokens/);
  });
});
