import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { genaiPriceRow, genaiPricesAvailable } from './genai-prices-fallback.js';
import { crossCheckPrices } from './price-crosscheck.js';

const DisagreementsFile = z.object({
  disagreements: z.record(
    z.string(),
    z.object({ cachet: z.number().nullable(), genaiPrices: z.number().nullable(), reason: z.string().min(20) }),
  ),
});

const listed = DisagreementsFile.parse(
  JSON.parse(readFileSync(new URL('./price-disagreements.json', import.meta.url), 'utf8')),
).disagreements;

// Skipped only in a checkout whose node_modules predates the dependency (run `npm install`).
describe.skipIf(!genaiPricesAvailable())('Cachet prices against @pydantic/genai-prices (bundled data, no network)', () => {
  const result = crossCheckPrices();

  it("compares most of Cachet's rows (the rest are models genai-prices does not know yet)", () => {
    expect(result.compared).toBeGreaterThanOrEqual(35);
    // The models genai-prices lacks, so a package update that adds them is noticed here.
    expect(result.unknownToGenaiPrices).toEqual(
      expect.arrayContaining(['anthropic/claude-sonnet-5-5', 'anthropic/claude-haiku-5-5', 'anthropic/claude-fable-5-2']),
    );
  });

  it('has no disagreement that price-disagreements.json does not explain', () => {
    const unexplained = result.disagreements.filter((entry) => !(entry.key in listed));
    expect(unexplained).toEqual([]);
  });

  it('lists no disagreement that has gone away, with the figures still as listed', () => {
    const found = new Map(result.disagreements.map((entry) => [entry.key, entry]));
    for (const [key, entry] of Object.entries(listed)) {
      expect(found.get(key), key).toMatchObject({ cachet: entry.cachet, genaiPrices: entry.genaiPrices });
    }
  });
});

describe.skipIf(!genaiPricesAvailable())('the genai-prices fallback at any hour', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("prices at the standard rates, not DeepSeek's off-peak half price after 16:30 UTC", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const at = (time: string) => {
      vi.setSystemTime(new Date(time));
      return genaiPriceRow('deepseek', 'deepseek-chat')?.inputPerMTok;
    };
    expect(at('2026-11-27T20:00:00Z')).toBe(at('2026-11-27T10:00:00Z'));
    expect(at('2026-11-27T23:59:00Z')).toBe(0.27);
  });
});
