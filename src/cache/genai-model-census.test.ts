import { describe, expect, it } from 'vitest';
import { genaiModelCensus } from './genai-model-census.js';
import { genaiPricesAvailable } from './genai-prices-fallback.js';

// Skipped only in a checkout whose node_modules predates the dependency (run `npm install`).
describe.skipIf(!genaiPricesAvailable())('every recent chat model in genai-prices is priced (npm run count:models)', () => {
  const census = genaiModelCensus();

  it('classifies every Anthropic, OpenAI, Google and DeepSeek id in the bundled data', () => {
    expect(census.unclassified).toEqual([]);
    expect(census.recent.length).toBeGreaterThanOrEqual(65);
  });

  it('prices each chat model released since 2025-06, by its own row or the fallback', () => {
    expect(census.unpriced).toEqual([]);
    // The current flagships have rows of their own (a wrong multiplier is a wrong decision).
    const own = census.recent.filter((line) => line.pricedBy === 'cachet').map((line) => line.model);
    expect(own).toEqual(
      expect.arrayContaining(['claude-fable-5-1', 'claude-opus-5-5', 'gpt-5.5', 'gemini-3.5-flash', 'deepseek-chat']),
    );
  });

  it('prices variants from their own genai-prices row, never at their family row (release-strength price match)', () => {
    const pro = census.recent.find((line) => line.model === 'gpt-5.5-pro');
    expect(pro?.pricedBy).toBe('genai-prices');
  });
});
