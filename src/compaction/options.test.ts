import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { DEFAULT_COMPACTION_OPTIONS, resolveCompactionOptions } from './options.js';

describe('resolveCompactionOptions', () => {
  it('merges over the defaults', () => {
    const options = resolveCompactionOptions({ windowTokens: 128_000, thresholds: { emergency: 0.95 } });
    expect(options.thresholds).toEqual({ ...DEFAULT_COMPACTION_OPTIONS.thresholds, emergency: 0.95 });
    expect(options.prices).toEqual({ write: 1.25, read: 0.1 });
  });

  it('names the bad option', () => {
    expect(() => resolveCompactionOptions({ windowTokens: 0 })).toThrow(/compaction.windowTokens: expected a positive integer/);
    expect(() => resolveCompactionOptions({ windowTokens: 1000, thresholds: { light: 0.8 } })).toThrow(
      /monitor <= light <= full <= emergency/,
    );
    expect(() => resolveCompactionOptions({ windowTokens: 1000, tailBudgetShare: 0.5 })).toThrow(ValidationError);
    expect(() => resolveCompactionOptions({ windowTokens: 1000, ingestionHeadTokens: 9_000 })).toThrow(
      /compaction.ingestionHeadTokens/,
    );
  });
});
