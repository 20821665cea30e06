import { describe, expect, it } from 'vitest';
import { parsedResponsesUsage, RESPONSES_USAGE } from '../openai-chat/test-support/replies.js';
import { parseOpenAIResponsesUsage } from './parse-usage.js';

// Shape of a Responses API response's usage (openai SDK 6.49.0 `ResponseUsage`).
const RESPONSE = {
  id: 'resp_123',
  object: 'response',
  status: 'completed',
  model: 'gpt-5.6',
  output: [],
  usage: RESPONSES_USAGE,
};

describe('parseOpenAIResponsesUsage', () => {
  it('maps input_tokens_details to reads and writes and keeps the raw usage', () => {
    expect(parseOpenAIResponsesUsage(RESPONSE)).toEqual(parsedResponsesUsage(RESPONSE.usage));
  });

  it('reads older models without cache_write_tokens', () => {
    const usage = {
      input_tokens: 2006,
      input_tokens_details: { cached_tokens: 1920 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2016,
    };
    expect(parseOpenAIResponsesUsage({ usage })).toMatchObject({
      uncachedInputTokens: 86,
      cacheReadTokens: 1920,
      cacheWrite5mTokens: 0,
    });
  });

  it('rejects a Chat Completions usage with a named field', () => {
    expect(() => parseOpenAIResponsesUsage({ usage: { prompt_tokens: 5 } })).toThrowError(/usage\.input_tokens/);
  });
});
