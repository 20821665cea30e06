import { describe, expect, it } from 'vitest';
import { cacheMultipliersFor, tailPricingFor } from './tail-pricing.js';
import { chooseHistoryTtl } from './ttl-policy.js';

describe("decisions priced from the model's own row", () => {
  it("reads each model's multipliers from its price row", () => {
    expect(cacheMultipliersFor('anthropic', 'claude-fable-5-1').read).toBeCloseTo(0.025);
    expect(cacheMultipliersFor('openrouter', 'anthropic/claude-opus-5.5').read).toBeCloseTo(0.05);
    const sonnet = cacheMultipliersFor('anthropic', 'claude-sonnet-4-5');
    expect([sonnet.write5m, sonnet.write1h, sonnet.read].map((value) => value.toFixed(6))).toEqual([
      '1.250000',
      '2.000000',
      '0.100000',
    ]);
    expect(cacheMultipliersFor('anthropic', 'not-a-model')).toEqual({ write5m: 1.25, write1h: 2, read: 0.1 });
    expect(tailPricingFor('anthropic', 'claude-fable-5-1').read).toBeCloseTo(0.025);
  });

  it("chooses a 1-hour entry at Fable 5.1's 0.025× read where the standard 0.1× keeps 5 minutes", () => {
    // One pause in three gaps, 10k tokens at risk, 8.8k new: the saving per re-write is
    // (1.25 − read) × 10k × 0.56 — 6.4k at 0.1×, 6.8k at 0.025× — against a 0.75 × 8.8k = 6.6k premium.
    const input = { gapsMs: [30_000, 420_000, 40_000], prefixTokens: 10_000, newTokens: 8_800 };
    expect(chooseHistoryTtl({ ...input, pricing: cacheMultipliersFor('anthropic', 'claude-sonnet-4-5') }).ttl).toBe('5m');
    expect(chooseHistoryTtl({ ...input, pricing: cacheMultipliersFor('anthropic', 'claude-fable-5-1') }).ttl).toBe('1h');
  });
});
