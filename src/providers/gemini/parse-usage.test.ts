import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { parseGeminiUsage } from './parse-usage.js';

describe('parseGeminiUsage', () => {
  it('takes cached tokens out of the prompt count and adds thoughts to the output', () => {
    expect(
      parseGeminiUsage({
        usageMetadata: {
          promptTokenCount: 5000,
          cachedContentTokenCount: 4096,
          candidatesTokenCount: 20,
          thoughtsTokenCount: 100,
        },
      }),
    ).toMatchObject({
      uncachedInputTokens: 904,
      cacheReadTokens: 4096,
      cacheWrite5mTokens: 0,
      outputTokens: 120,
      reasoningTokens: 100,
    });
  });

  it('reads a bare usage object and a response without cached tokens', () => {
    expect(parseGeminiUsage({ promptTokenCount: 10, candidatesTokenCount: 2 })).toMatchObject({
      uncachedInputTokens: 10,
      cacheReadTokens: 0,
    });
  });

  it('rejects cached counts larger than the prompt, naming the field', () => {
    expect(() => parseGeminiUsage({ usageMetadata: { promptTokenCount: 10, cachedContentTokenCount: 11 } })).toThrow(
      /cachedContentTokenCount/,
    );
    expect(() => parseGeminiUsage(null)).toThrow(ValidationError);
  });
});
