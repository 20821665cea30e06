import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { chooseGeminiCaching } from './explicit-cache-policy.js';
import { resolveGeminiModel } from './models.js';

const pro = resolveGeminiModel('gemini-2.5-pro');
const flash = resolveGeminiModel('gemini-2.5-flash');

describe('chooseGeminiCaching', () => {
  it('holds an explicit cache for a long, busy session with a large static prefix', () => {
    const choice = chooseGeminiCaching({
      staticTokens: 30_000,
      row: pro,
      inputPerMTok: 1.25,
      expectedRemainingRequests: 40,
      expectedGapMs: 20_000,
    });
    expect(choice.mode).toBe('explicit');
    // 40 × 30K × $1.25/M × (1 − 0.5 × 0.9) = $0.825 implicit; $0.0375 create + storage + 40 reads at 0.1× = $0.21.
    expect(choice.implicitCostUsd).toBeCloseTo(0.825, 6);
    expect(choice.explicitCostUsd).toBeLessThan(choice.implicitCostUsd);
    expect(choice.ttlSeconds).toBe(60);
  });

  it('stays implicit when storage over long pauses costs more than the surer reads save', () => {
    const choice = chooseGeminiCaching({
      staticTokens: 30_000,
      row: flash,
      inputPerMTok: 0.3,
      expectedRemainingRequests: 6,
      expectedGapMs: 3_600_000,
    });
    expect(choice.mode).toBe('implicit');
    expect(choice.ttlSeconds).toBe(5400);
  });

  it('cannot go explicit below the explicit minimum', () => {
    const choice = chooseGeminiCaching({
      staticTokens: 1500,
      row: pro,
      inputPerMTok: 1.25,
      expectedRemainingRequests: 1000,
      expectedGapMs: 1000,
    });
    expect(choice.mode).toBe('implicit');
    expect(choice.reason).toMatch(/below the 2048-token minimum/);
  });

  it('counts no implicit hits for models without implicit caching, so explicit wins sooner', () => {
    const old = resolveGeminiModel('gemini-2.0-flash');
    const input = { staticTokens: 10_000, inputPerMTok: 0.1, expectedRemainingRequests: 5, expectedGapMs: 30_000 };
    expect(chooseGeminiCaching({ ...input, row: old }).mode).toBe('explicit');
    expect(chooseGeminiCaching({ ...input, row: old, expectedRemainingRequests: 1 }).mode).toBe('implicit');
  });

  it('rejects a forecast that is not a number', () => {
    expect(() =>
      chooseGeminiCaching({
        staticTokens: 1,
        row: pro,
        inputPerMTok: 1,
        expectedRemainingRequests: Number.NaN,
        expectedGapMs: 0,
      }),
    ).toThrow(ValidationError);
  });
});
