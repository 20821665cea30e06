import { describe, expect, it } from 'vitest';
import { anthropicCapabilities } from './capabilities.js';
import { ANTHROPIC_MODELS, resolveAnthropicModel, UNKNOWN_ANTHROPIC_MODEL } from './models.js';

describe('Anthropic model table', () => {
  it('matches dated ids by the longest prefix', () => {
    expect(resolveAnthropicModel('claude-haiku-4-5-20251001').effectiveFloorTokens).toBe(4096);
    expect(resolveAnthropicModel('claude-opus-4-5-20251101').family).toBe('Claude Opus 4.5');
    expect(resolveAnthropicModel('claude-opus-4-20250514').family).toBe('Claude Opus 4');
    expect(resolveAnthropicModel('claude-opus-4-1-20250805').family).toBe('Claude Opus 4.1');
    expect(resolveAnthropicModel('claude-sonnet-4-6').effectiveFloorTokens).toBe(2048);
    expect(resolveAnthropicModel('claude-sonnet-4-6').documentedFloorTokens).toBe(1024);
  });

  it('keeps the Haiku 4.5 effective floor inside the seed probe (above 3,320, at most 4,957) and the padding target above it', () => {
    const haiku = resolveAnthropicModel('claude-haiku-4-5');
    expect(haiku.effectiveFloorTokens).toBeGreaterThan(3320);
    expect(haiku.effectiveFloorTokens).toBeLessThanOrEqual(4957);
    expect(haiku.paddingTarget).toEqual({ min: 4500, max: 5500 });
  });

  it('gives every row a source, a date and a target above its floor', () => {
    for (const row of ANTHROPIC_MODELS) {
      expect(row.source.length).toBeGreaterThan(10);
      expect(row.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.paddingTarget.min).toBeGreaterThan(row.effectiveFloorTokens);
      expect(row.paddingTarget.max).toBeGreaterThan(row.paddingTarget.min);
    }
  });

  it('lets user rows override the table and falls back for unknown models', () => {
    const custom = { ...UNKNOWN_ANTHROPIC_MODEL, models: ['claude-haiku-4-5'], family: 'mine', effectiveFloorTokens: 5000 };
    expect(resolveAnthropicModel('claude-haiku-4-5-20251001', [custom]).family).toBe('mine');
    expect(resolveAnthropicModel('some-proxy-model')).toBe(UNKNOWN_ANTHROPIC_MODEL);
  });

  it('declares explicit caching honestly in the capabilities record', () => {
    expect(anthropicCapabilities('claude-sonnet-4-5')).toMatchObject({
      provider: 'anthropic',
      promptCaching: true,
      cachingMode: 'explicit',
      maxBreakpoints: 4,
      ttlOptions: ['5m', '1h'],
      minimumPrefixTokens: 1024,
    });
    expect(anthropicCapabilities('some-proxy-model').minimumPrefixTokens).toBe(0);
  });
});
