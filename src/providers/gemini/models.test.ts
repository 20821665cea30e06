import { describe, expect, it } from 'vitest';
import { costOf } from '../../cache/cost.js';
import { emptyUsage } from '../../model/usage.js';
import { resolveGeminiModel, UNKNOWN_GEMINI_MODEL } from './models.js';

describe('Gemini model table (caching page as updated 2026-10)', () => {
  it('gives 2.5 Flash and 2.5 Pro a 2,048 minimum and 3.1 Pro and 3.5–3.8 Flash 4,096', () => {
    expect(resolveGeminiModel('gemini-2.5-flash').implicitMinimumTokens).toBe(2048);
    expect(resolveGeminiModel('gemini-2.5-pro').implicitMinimumTokens).toBe(2048);
    for (const model of [
      'gemini-3.1-pro-preview',
      'gemini-3.5-flash',
      'gemini-3.6-flash',
      'gemini-3.7-flash',
      'gemini-3.8-flash',
    ]) {
      expect(resolveGeminiModel(model).implicitMinimumTokens).toBe(4096);
    }
  });

  it('knows gemini-3.5-flash with implicit caching on, and its Flash-Lite apart from it', () => {
    const flash = resolveGeminiModel('gemini-3.5-flash');
    expect(flash).not.toBe(UNKNOWN_GEMINI_MODEL);
    expect(flash.implicitCaching).toBe(true);
    expect(resolveGeminiModel('gemini-3.5-flash-lite').family).toBe('Gemini 3.5 Flash-Lite');
  });

  it('prices a Pro prompt over 200K tokens at the long band, never an average', () => {
    const usage = (uncached: number) => ({ ...emptyUsage(), uncachedInputTokens: uncached, outputTokens: 1_000 });
    expect(costOf(usage(200_000), 'gemini', 'gemini-3.1-pro-preview').costUsd).toBeCloseTo((200_000 * 2 + 1_000 * 12) / 1e6);
    expect(costOf(usage(200_001), 'gemini', 'gemini-3.1-pro-preview').costUsd).toBeCloseTo((200_001 * 4 + 1_000 * 18) / 1e6);
    expect(costOf(usage(10_000), 'gemini', 'gemini-3.5-flash').costUsd).toBeCloseTo((10_000 * 1.5 + 1_000 * 9) / 1e6);
  });
});
