import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../model/usage.js';
import { costOf, sessionCostOf, uncachedCostOf } from './cost.js';
import { genaiPriceRow, genaiPricesAvailable } from './genai-prices-fallback.js';
import { findOwnPrice, findPrice, PRICES } from './pricing.js';

function usage(figures: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...figures };
}

describe('pricing table', () => {
  it("prices Anthropic writes at 1.25× (5m) and 2× (1h) and reads at the row's own multiplier", () => {
    // Pricing page since 2026-09: Fable/Mythos 5.1 and Fable 5.2 read at 0.025×, Opus/Sonnet 5.5 at 0.05×, the rest 0.1×.
    const cheaperReads: Record<string, number> = {
      'claude-fable-5-2': 0.025,
      'claude-fable-5-1': 0.025,
      'claude-mythos-5-1': 0.025,
      'claude-opus-5-5': 0.05,
      'claude-sonnet-5-5': 0.05,
    };
    const rows = PRICES.filter((candidate) => candidate.vendor === 'anthropic');
    for (const row of rows) {
      expect(row.cacheWrite5mPerMTok).toBeCloseTo(row.inputPerMTok * 1.25);
      expect(row.cacheWrite1hPerMTok).toBeCloseTo(row.inputPerMTok * 2);
      expect(row.cacheReadPerMTok).toBeCloseTo(row.inputPerMTok * (cheaperReads[row.model] ?? 0.1));
      expect(row.source).toMatch(/platform\.claude\.com/);
    }
    expect(rows.map((row) => row.model)).toEqual(expect.arrayContaining(Object.keys(cheaperReads)));
  });

  it("prices the current Claude models with their own rows, never an older version's", () => {
    expect(findPrice('anthropic', 'claude-fable-5-1')?.cacheReadPerMTok).toBeCloseTo(0.25);
    expect(findPrice('anthropic', 'claude-fable-5-2')?.inputPerMTok).toBe(8);
    expect(findPrice('anthropic', 'claude-fable-5')?.cacheReadPerMTok).toBeCloseTo(1);
    expect(findPrice('anthropic', 'claude-opus-5-5')?.cacheReadPerMTok).toBeCloseTo(0.2);
    expect(findPrice('anthropic', 'claude-haiku-5-5')?.longPrompt?.thresholdTokens).toBe(100_000);
  });

  it('applies the OpenAI family discounts: gpt-4o 50%, gpt-4.1 75%, gpt-5 90%', () => {
    const discount = (model: string) =>
      1 - findPrice('openai-chat', model)!.cacheReadPerMTok / findPrice('openai-chat', model)!.inputPerMTok;
    expect(discount('gpt-4o')).toBeCloseTo(0.5);
    expect(discount('gpt-4.1')).toBeCloseTo(0.75);
    expect(discount('gpt-5')).toBeCloseTo(0.9);
  });

  it('matches dated ids and the longest row, never a different version', () => {
    expect(findPrice('anthropic', 'claude-haiku-4-5-20251001')?.model).toBe('claude-haiku-4-5');
    expect(findPrice('anthropic', 'claude-sonnet-4-20250514')?.model).toBe('claude-sonnet-4');
    expect(findPrice('anthropic', 'claude-opus-4-1-20250805')?.model).toBe('claude-opus-4-1');
    expect(findPrice('openai-chat', 'gpt-4o-mini-2024-07-18')?.model).toBe('gpt-4o-mini');
    expect(findOwnPrice('openai-responses', 'gpt-5.6')).toBeNull();
  });

  it.skipIf(!genaiPricesAvailable())(
    'falls back to the bundled genai-prices data for a model Cachet does not know, marked so',
    () => {
      const row = findPrice('openai-responses', 'gpt-5.6');
      expect(row?.priceSource).toBe('genai-prices');
      expect(row?.source).toMatch(/^@pydantic\/genai-prices/);
      const cost = costOf(usage({ uncachedInputTokens: 1_000 }), 'openai-responses', 'gpt-5.6');
      expect(cost).toMatchObject({ priced: true, priceSource: 'genai-prices' });
      expect(costOf(usage({ uncachedInputTokens: 1_000 }), 'anthropic', 'claude-sonnet-4-5').priceSource).toBe('cachet');
    },
  );

  it.skipIf(!genaiPricesAvailable())(
    "never prices an unknown version at an older one's rates, and leaves unknown models unpriced",
    () => {
      // genai-prices matches ids by prefix and has no Sonnet 5.5 row: it would price it as Sonnet 5.
      expect(genaiPriceRow('anthropic', 'claude-sonnet-5-5')).toBeNull();
      expect(genaiPriceRow('anthropic', 'claude-sonnet-5-20260101')?.model).toBe('claude-sonnet-5');
      const cost = costOf(usage({ uncachedInputTokens: 1_000 }), 'anthropic', 'claude-nonesuch-9');
      expect(cost).toMatchObject({ priced: false, priceSource: null, costUsd: 0 });
    },
  );

  it('passes OpenRouter ids through to the vendor price list', () => {
    expect(findPrice('openrouter', 'anthropic/claude-sonnet-4.5')?.model).toBe('claude-sonnet-4-5');
    expect(findPrice('openrouter', 'openai/gpt-4.1')?.model).toBe('gpt-4.1');
    expect(findPrice('openrouter', 'meta-llama/llama-3.3-70b')).toBeNull();
  });
});

describe('costOf', () => {
  const mixed = usage({
    uncachedInputTokens: 1_000,
    cacheReadTokens: 100_000,
    cacheWrite5mTokens: 4_000,
    cacheWrite1hTokens: 2_000,
    outputTokens: 500,
  });

  it('bills each bucket at its rate', () => {
    const cost = costOf(mixed, 'anthropic', 'claude-sonnet-4-5');
    // $3 input: 1k × 3 + 100k × 0.3 + 4k × 3.75 + 2k × 6, output 500 × 15, per million.
    expect(cost.inputCostUsd).toBeCloseTo((1_000 * 3 + 100_000 * 0.3 + 4_000 * 3.75 + 2_000 * 6) / 1e6);
    expect(cost.outputCostUsd).toBeCloseTo((500 * 15) / 1e6);
    expect(cost.costUsd).toBeCloseTo(cost.inputCostUsd + cost.outputCostUsd);
  });

  it('prices a Haiku 5.5 request above 100k prompt tokens at the long-prompt band on every token', () => {
    const short = costOf(usage({ uncachedInputTokens: 100_000, outputTokens: 1_000 }), 'anthropic', 'claude-haiku-5-5');
    const long = costOf(
      usage({ uncachedInputTokens: 1_000, cacheReadTokens: 100_000, outputTokens: 1_000 }),
      'anthropic',
      'claude-haiku-5-5',
    );
    expect(short.costUsd).toBeCloseTo((100_000 * 0.1 + 1_000 * 0.5) / 1e6);
    // 101k prompt tokens: $0.50 input, $0.05 read, $2.50 output.
    expect(long.costUsd).toBeCloseTo((1_000 * 0.5 + 100_000 * 0.05 + 1_000 * 2.5) / 1e6);
  });

  it('gives the uncached cost of the same request beside it', () => {
    const uncached = uncachedCostOf(mixed, 'anthropic', 'claude-sonnet-4-5');
    expect(uncached.inputCostUsd).toBeCloseTo((107_000 * 3) / 1e6);
    expect(uncached.inputCostUsd).toBeGreaterThan(costOf(mixed, 'anthropic', 'claude-sonnet-4-5').inputCostUsd);
  });

  it('lets callers override prices', () => {
    const row = {
      ...findPrice('anthropic', 'claude-sonnet-4-5')!,
      model: 'claude-sonnet-4-5',
      inputPerMTok: 1,
      cacheReadPerMTok: 0,
    };
    // 100k tokens: under the 200K long-context band the built-in row carries.
    expect(
      costOf(usage({ uncachedInputTokens: 100_000 }), 'anthropic', 'claude-sonnet-4-5', { prices: [row] }).costUsd,
    ).toBeCloseTo(0.1);
  });

  it('local engines are free; unknown models are unpriced', () => {
    expect(costOf(mixed, 'openai-compatible', 'qwen3-8b')).toMatchObject({ costUsd: 0, free: true, priced: true });
    expect(costOf(mixed, 'openai-chat', 'some-new-model')).toMatchObject({ costUsd: 0, free: false, priced: false });
  });

  it('sums a session with its savings share', () => {
    const first = usage({ cacheWrite5mTokens: 10_000, uncachedInputTokens: 100 });
    const later = usage({ cacheReadTokens: 10_000, uncachedInputTokens: 100 });
    const session = sessionCostOf(
      [first, later, later].map((entry) => ({ usage: entry, provider: 'anthropic' as const, model: 'claude-haiku-4-5' })),
    );
    const expectedInput = (10_000 * 1.25 + 300 + 20_000 * 0.1) / 1e6;
    expect(session.inputCostUsd).toBeCloseTo(expectedInput);
    expect(session.uncachedInputCostUsd).toBeCloseTo(30_300 / 1e6);
    expect(session.inputSavingsShare).toBeCloseTo(1 - expectedInput / (30_300 / 1e6));
  });
});
