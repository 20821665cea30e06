import { describe, expect, it } from 'vitest';
import { chooseHistoryTtl, estimateWriteTokens, type PreviousPrefix, protectedTokens } from './ttl-policy.js';

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
  it('after a pause, leaves out what a live 1-hour entry still holds (the 1-hour premium is priced on the rest)', () => {
    const afterPause = { ...current, at: 25 * 60_000 };
    const long = { at: 2 * 60_000, model: 'claude-sonnet-5', prefixHash: 'h2', prefixTokens: 56_000 };
    expect(estimateWriteTokens(afterPause, previous, long)).toBe(1_431);
    // Expired (an hour old), of another model, or not a prefix of this request: the whole prefix.
    expect(estimateWriteTokens({ ...afterPause, at: long.at + 60 * 60_000 }, previous, long)).toBe(57_431);
    expect(estimateWriteTokens(afterPause, previous, { ...long, model: 'claude-opus-5' })).toBe(57_431);
    expect(estimateWriteTokens(afterPause, previous, { ...long, prefixHash: 'x9' })).toBe(57_431);
    // While the previous entry is live, the growth as before.
    expect(estimateWriteTokens(current, previous, long)).toBe(431);
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

describe('protected prefix', () => {
  const gaps = [30_000, 40_000, 50_000, 420_000, 30_000, 60_000, 45_000, 35_000, 40_000, 30_000];
  it('writes a large new segment at 5 minutes when an earlier 1-hour entry holds the rest', () => {
    // 1 pause in 10: the whole 20,000-token prefix at risk repays the premium on 1,500 new tokens...
    expect(chooseHistoryTtl({ gapsMs: gaps, prefixTokens: 20_000, newTokens: 1_500 }).ttl).toBe('1h');
    // ...but with 18,500 of them held by a 1-hour entry, only the new segment is at risk.
    expect(chooseHistoryTtl({ gapsMs: gaps, prefixTokens: 20_000, newTokens: 1_500, protectedTokens: 18_500 }).ttl).toBe('5m');
    // The next small write extends the 1-hour entry over it for little.
    expect(chooseHistoryTtl({ gapsMs: gaps, prefixTokens: 20_100, newTokens: 100, protectedTokens: 18_500 }).ttl).toBe('1h');
  });

  it('counts an earlier 1-hour entry only while a later request could still read it after a pause', () => {
    const entry = { at: 0, model: current.model, prefixHash: 'h1', prefixTokens: 50_000 };
    expect(protectedTokens(current, entry)).toBe(50_000);
    expect(protectedTokens({ ...current, model: 'claude-opus-5' }, entry)).toBe(0);
    expect(protectedTokens({ ...current, at: 40 * 60_000 }, entry)).toBe(0);
    expect(protectedTokens({ ...current, prefixHashes: ['x1', 'x2'] }, entry)).toBe(0);
    const far = { ...current, prefixHashes: ['h1', ...Array.from({ length: 25 }, (_, index) => `n${index}`)] };
    expect(protectedTokens(far, entry)).toBe(0);
    expect(protectedTokens(current, null)).toBe(0);
  });
});

describe('gaps by request kind and keep-warm pings', () => {
  // 1 pause in 10 gaps over the session: a 19% chance that one falls in the next two gaps.
  const gaps = [30_000, 40_000, 50_000, 420_000, 30_000, 60_000, 45_000, 35_000, 40_000, 30_000];
  const held = { gapsMs: gaps, protectedTokens: 18_500 };
  it('prices the next gap on the gaps that followed requests of the same kind', () => {
    // 1,900 tokens at risk, 400 new: worth an hour at the session's 1-in-10 pauses...
    expect(chooseHistoryTtl({ ...held, prefixTokens: 20_400, newTokens: 400 }).ttl).toBe('1h');
    // ...not after a kind of request (a turn start) that was always followed by a tool's short gap.
    const afterTurnStarts = Array.from({ length: 8 }, () => 20_000);
    const turnStart = chooseHistoryTtl({ ...held, prefixTokens: 20_400, newTokens: 400, kindGapsMs: afterTurnStarts });
    expect(turnStart.ttl).toBe('5m');
    expect(turnStart.reason).toContain('2% after requests of this kind');
    // A new 1,000-token segment is not worth an hour at 1 in 10, but is after a kind the user always paused after.
    expect(chooseHistoryTtl({ ...held, prefixTokens: 19_500, newTokens: 1_000 }).ttl).toBe('5m');
    const afterAnswers = Array.from({ length: 8 }, () => 600_000);
    expect(chooseHistoryTtl({ ...held, prefixTokens: 19_500, newTokens: 1_000, kindGapsMs: afterAnswers }).ttl).toBe('1h');
    // Few gaps of a kind are shrunk towards the session's share: one short gap barely moves it.
    expect(chooseHistoryTtl({ ...held, prefixTokens: 20_400, newTokens: 400, kindGapsMs: [20_000] }).ttl).toBe('1h');
  });

  it('with keep-warm pings, saves no more than the pings a pause would take', () => {
    // 1,600 tokens at risk in a 13,000-token prefix: a re-write costs 1,840, one ping through a 7-minute pause 1,308.
    const input = { gapsMs: gaps, prefixTokens: 13_000, protectedTokens: 11_400, newTokens: 400 };
    expect(chooseHistoryTtl(input).ttl).toBe('1h');
    const pinged = chooseHistoryTtl({ ...input, keepWarm: true });
    expect(pinged).toMatchObject({ ttl: '5m' });
    expect(pinged.reason).toContain('pings through a pause');
    // A 25-minute pause takes five pings: the re-write is the cheaper loss again, and worth the hour.
    const longPauses = gaps.map((gap) => (gap === 420_000 ? 25 * 60_000 : gap));
    expect(chooseHistoryTtl({ ...input, gapsMs: longPauses, keepWarm: true }).ttl).toBe('1h');
  });

  it('values the gap after next by what the next request adds: a large segment is pinged through a pause anyway', () => {
    // A turn start (always followed by a tool's short gap) over 1,250 tokens at risk, 106 new.
    const turnStart = {
      gapsMs: gaps,
      kindGapsMs: Array.from({ length: 8 }, () => 20_000),
      prefixTokens: 11_942,
      protectedTokens: 10_692,
      newTokens: 106,
      keepWarm: true,
    };
    expect(chooseHistoryTtl(turnStart).ttl).toBe('1h');
    // The next request is expected to add 1,500 tokens: a pause after it costs one ping of the
    // whole prefix either way, so the hour bought now would save nothing.
    expect(chooseHistoryTtl({ ...turnStart, expectedGrowthTokens: 1_500 }).ttl).toBe('5m');
    // It adds 100: the re-write of 1,350 tokens is then what the hour saves, as before.
    expect(chooseHistoryTtl({ ...turnStart, expectedGrowthTokens: 100 }).ttl).toBe('1h');
  });
});
