import { describe, expect, it } from 'vitest';
import { anthropicCapabilities } from './capabilities.js';
import { ANTHROPIC_MODELS, resolveAnthropicModel, UNKNOWN_ANTHROPIC_MODEL } from './models.js';
import { planPadding } from './padding.js';
import { anthropicCacheMultipliers } from './prices.js';

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

  it('knows the current models: Fable/Mythos 5.x cache from 512 tokens, 5.5 rows are not the unknown row', () => {
    for (const model of ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-fable-5-2', 'claude-fable-5']) {
      expect(resolveAnthropicModel(model).effectiveFloorTokens).toBe(512);
    }
    for (const model of ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']) {
      expect(resolveAnthropicModel(model)).not.toBe(UNKNOWN_ANTHROPIC_MODEL);
    }
    expect(resolveAnthropicModel('claude-fable-5-1').family).toBe('Claude Fable 5.1');
  });

  it('keeps effort out of the cache key on the 5 generation only', () => {
    expect(resolveAnthropicModel('claude-opus-5-5').cacheKeyParams).not.toContain('output_config');
    expect(resolveAnthropicModel('claude-opus-5-5').cacheKeyParams).toContain('output_config.format');
    expect(resolveAnthropicModel('claude-opus-4-8').cacheKeyParams).toContain('output_config');
    expect(UNKNOWN_ANTHROPIC_MODEL.cacheKeyParams).toContain('output_config');
  });

  it("reads each model's own read multiplier, and pads sooner when reads are cheaper", () => {
    expect(anthropicCacheMultipliers('claude-fable-5-1').read).toBeCloseTo(0.025);
    expect(anthropicCacheMultipliers('claude-sonnet-5-5').read).toBeCloseTo(0.05);
    expect(anthropicCacheMultipliers('claude-opus-4-8').read).toBeCloseTo(0.1);
    expect(anthropicCacheMultipliers('unknown-model')).toEqual({ write5m: 1.25, write1h: 2, read: 0.1 });
    // The same 3,000-token prefix under Haiku 4.5's 4,096 floor over 2 requests: padding pays back at 0.025×, not at 0.1×.
    const row = resolveAnthropicModel('claude-haiku-4-5');
    const pads = (read: number) =>
      planPadding({
        mode: 'auto',
        prefixTokens: 3_000,
        model: row,
        expectedRequests: 2,
        pricing: { write5m: 1.25, write1h: 2, read },
      }).decision.applied;
    expect(pads(0.1)).toBe(false);
    expect(pads(0.025)).toBe(true);
  });
});
