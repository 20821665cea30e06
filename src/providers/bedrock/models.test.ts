import { describe, expect, it } from 'vitest';
import { resolveAnthropicModel } from '../anthropic/models.js';
import { bedrockBaseModelId, resolveBedrockModel } from './models.js';

describe('Bedrock model rows', () => {
  it('strips region and vendor prefixes from model ids and inference profiles', () => {
    expect(bedrockBaseModelId('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929-v1:0');
    expect(bedrockBaseModelId('global.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe('claude-haiku-4-5-20251001-v1:0');
    expect(bedrockBaseModelId('eu.amazon.nova-lite-v1:0')).toBe('nova-lite-v1:0');
  });

  it('reuses the Anthropic floors for Claude and applies the exceptions list', () => {
    for (const model of ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-6']) {
      expect(resolveBedrockModel(`us.anthropic.${model}-v1:0`).minimumTokensPerCheckpoint).toBe(
        resolveAnthropicModel(model).effectiveFloorTokens,
      );
    }
    expect(resolveBedrockModel('anthropic.claude-sonnet-4-5-20250929-v1:0').ttlOptions).toEqual(['5m', '1h']);
    expect(resolveBedrockModel('anthropic.claude-sonnet-4-20250514-v1:0').ttlOptions).toEqual(['5m']);
    expect(resolveBedrockModel('anthropic.claude-3-7-sonnet-20250219-v1:0')).toMatchObject({
      minimumTokensPerCheckpoint: 1024,
      ttlOptions: ['5m'],
    });
  });

  it('plans the Claude 5 generation with 5 minutes only: no AWS source lists it for the 1-hour TTL (checked 2026-11-27)', () => {
    for (const model of [
      'claude-fable-5-1',
      'claude-mythos-5-1',
      'claude-opus-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'claude-opus-5',
    ]) {
      const row = resolveBedrockModel(`us.anthropic.${model}-v1:0`);
      expect(row.ttlOptions, model).toEqual(['5m']);
      // Floors and read multipliers still come from the Anthropic rows.
      expect(row.minimumTokensPerCheckpoint, model).toBe(resolveAnthropicModel(model).effectiveFloorTokens);
    }
    expect(resolveBedrockModel('us.anthropic.claude-fable-5-1-v1:0').pricing.read).toBeCloseTo(0.025);
  });

  it('gives Nova its own row: no tools, 20K cap, no write premium', () => {
    expect(resolveBedrockModel('us.amazon.nova-pro-v1:0')).toMatchObject({
      cacheFields: ['system', 'messages'],
      maxCachedPrefixTokens: 20_000,
      pricing: { write5m: 1, read: 0.25 },
    });
  });

  it('lets caller rows win', () => {
    const custom = { ...resolveBedrockModel('amazon.nova-pro-v1:0'), models: ['nova-pro'], minimumTokensPerCheckpoint: 2048 };
    expect(resolveBedrockModel('amazon.nova-pro-v1:0', [custom]).minimumTokensPerCheckpoint).toBe(2048);
  });
});
