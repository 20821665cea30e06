import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { parseBedrockUsage } from './parse-usage.js';

describe('parseBedrockUsage', () => {
  it('splits writes by TTL from cacheDetails', () => {
    const usage = parseBedrockUsage({
      usage: {
        inputTokens: 12,
        outputTokens: 40,
        totalTokens: 6152,
        cacheReadInputTokens: 5000,
        cacheWriteInputTokens: 1100,
        cacheDetails: [
          { ttl: '1h', inputTokens: 1000 },
          { ttl: '5m', inputTokens: 100 },
        ],
      },
    });
    expect(usage).toMatchObject({
      uncachedInputTokens: 12,
      cacheReadTokens: 5000,
      cacheWrite1hTokens: 1000,
      cacheWrite5mTokens: 100,
      outputTokens: 40,
    });
  });

  it('counts writes as 5-minute without cacheDetails, and reads stream metadata events', () => {
    const usage = parseBedrockUsage({
      metadata: { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 504, cacheWriteInputTokens: 500 } },
    });
    expect(usage).toMatchObject({ cacheWrite5mTokens: 500, cacheWrite1hTokens: 0, cacheReadTokens: 0 });
  });

  it('names the field that is wrong', () => {
    expect(() => parseBedrockUsage({ usage: { inputTokens: -1 } })).toThrow(ValidationError);
    expect(() => parseBedrockUsage('nope')).toThrow(/Converse response/);
  });
});
