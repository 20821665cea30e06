import { describe, expect, it } from 'vitest';
import { chooseHistoryTtl, estimateWriteTokens, type PreviousPrefix } from './ttl-policy.js';

const previous: PreviousPrefix = {
  at: 0,
  model: 'claude-sonnet-5',
  lastPrefixHash: 'h3',
  staticPrefixHash: 'h1',
  prefixTokens: 57_000,
  lifetimeMs: 5 * 60_000,
};
const current = {
  at: 30_000,
  model: 'claude-sonnet-5',
  prefixHashes: ['h1', 'h2', 'h3', 'h4'],
  staticPrefixHash: 'h1',
  prefixTokens: 57_431,
  historyTokens: 50_000,
};

describe('estimateWriteTokens', () => {
  it('is the growth when the previous prefix is still live', () => {
    expect(estimateWriteTokens(current, previous)).toBe(431);
  });
  it('is the whole prefix after a tool change, a model change or an expiry', () => {
    expect(estimateWriteTokens({ ...current, prefixHashes: ['x1', 'x2'], staticPrefixHash: 'x1' }, previous)).toBe(57_431);
    expect(estimateWriteTokens({ ...current, model: 'claude-opus-5' }, previous)).toBe(57_431);
    expect(estimateWriteTokens({ ...current, at: 6 * 60_000 }, previous)).toBe(57_431);
    expect(estimateWriteTokens(current, null)).toBe(57_431);
  });
  it('is the history after a rewrite that kept the static zones (compaction)', () => {
    expect(estimateWriteTokens({ ...current, prefixHashes: ['h1', 'c2'] }, previous)).toBe(50_000);
  });
});

describe('chooseHistoryTtl', () => {
  const pauses = [30_000, 420_000, 40_000, 600_000];
  it('does not pay the 1-hour premium on a whole-prefix re-write that few pauses would repay', () => {
    expect(chooseHistoryTtl({ gapsMs: pauses, prefixTokens: 57_431, newTokens: 431 }).ttl).toBe('1h');
    expect(
      chooseHistoryTtl({ gapsMs: [30_000, 420_000, 40_000, 30_000, 20_000, 10_000], prefixTokens: 57_431, newTokens: 57_431 })
        .ttl,
    ).toBe('5m');
  });
  it('stays at 5 minutes without pauses or without a request to come', () => {
    expect(chooseHistoryTtl({ gapsMs: [30_000, 40_000], prefixTokens: 57_431, newTokens: 10 }).ttl).toBe('5m');
    const last = chooseHistoryTtl({ gapsMs: pauses, prefixTokens: 57_431, newTokens: 431, expectedRemainingRequests: 0 });
    expect(last).toMatchObject({ ttl: '5m', reason: 'no request is expected after this one' });
  });
});
