import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { planKeepWarm } from './plan-keep-warm.js';

const MINUTE = 60_000;
const STANDARD = { write5m: 1.25, write1h: 2, read: 0.1 };

describe('planKeepWarm', () => {
  it('prices one ping against a re-write as the measured 215k-token session did', () => {
    // Opus at $5/M: re-writing 215k tokens costs $1.34, one ping (a read) $0.11.
    const plan = planKeepWarm({ prefixTokens: 215_000, gapsMs: [8 * MINUTE], pricing: STANDARD, inputPerMTok: 5 });
    expect(plan.action).toBe('ping');
    expect(plan.pings).toBeGreaterThanOrEqual(1);
    expect(plan.scheduleMs[0]).toBe(5 * MINUTE - 20_000);
    expect((plan.expectedCost.letExpire * 5) / 1e6).toBeCloseTo(1.34, 2);
    // One ping, then the return reads: two reads of the prefix and the ping's own 8 tokens.
    expect(plan.expectedCost.ping).toBeCloseTo(2 * 0.1 * 215_000 + 8, 6);
    expect(plan.expectedSavingUsd).toBeCloseTo(((1.25 - 0.2) * 215_000 - 8) * 5e-6, 6);
  });

  it('sends nothing when users come back within the entry’s lifetime', () => {
    const plan = planKeepWarm({ prefixTokens: 50_000, gapsMs: [20_000, 40_000, 3 * MINUTE], pricing: STANDARD });
    expect(plan).toMatchObject({ action: 'let-expire', pings: 0, scheduleMs: [], expectedSaving: 0 });
  });

  it('lets the entry expire when users come back hours later: an hour of pings buys nothing', () => {
    const plan = planKeepWarm({ prefixTokens: 80_000, gapsMs: [2 * 60 * MINUTE, 3 * 60 * MINUTE], pricing: STANDARD });
    expect(plan.action).toBe('let-expire');
    expect(plan.expectedCost.ping).toBe(plan.expectedCost.letExpire);
  });

  it('prefers a 1-hour write when returns take most of an hour (ten pings cost more than the premium)', () => {
    const plan = planKeepWarm({ prefixTokens: 80_000, gapsMs: [50 * MINUTE, 55 * MINUTE], pricing: STANDARD });
    expect(plan.action).toBe('write-1h');
    expect(plan.expectedCost.write1h).toBeCloseTo((0.75 + 0.1) * 80_000, 6);
    expect(plan.expectedCost.write1h).toBeLessThan(plan.expectedCost.ping);
  });

  it('pings longer when reads are cheaper (Fable 5.1 reads at 0.025×)', () => {
    const gapsMs = [50 * MINUTE, 55 * MINUTE];
    const standard = planKeepWarm({ prefixTokens: 80_000, gapsMs, pricing: STANDARD });
    const cheapReads = planKeepWarm({ prefixTokens: 80_000, gapsMs, pricing: { ...STANDARD, read: 0.025 } });
    expect(standard.action).toBe('write-1h');
    expect(cheapReads.action).toBe('ping');
    // 55 minutes at one ping every 4 min 40 s: 11 pings keep the entry alive until 56 min 20 s.
    expect(cheapReads.pings).toBe(11);
  });

  it('prices only the gaps longer than the idle time already passed', () => {
    const gapsMs = [30_000, 30_000, 30_000, 8 * MINUTE];
    expect(planKeepWarm({ prefixTokens: 10_000, gapsMs, pricing: STANDARD }).gapsPriced).toBe(4);
    const idle = planKeepWarm({ prefixTokens: 10_000, gapsMs, pricing: STANDARD, idleMs: MINUTE });
    expect(idle.gapsPriced).toBe(1);
    expect(idle.action).toBe('ping');
    expect(planKeepWarm({ prefixTokens: 10_000, gapsMs: [], pricing: STANDARD })).toMatchObject({
      action: 'let-expire',
      gapsPriced: 0,
      reason: 'no gaps learned yet: nothing to price',
    });
  });

  it('pings the 1-hour entry just before it expires when a pause outlives it (one ping, not twelve)', () => {
    // The bundled long session: 34k tokens, all but 200 held by a 1-hour entry written 5 min ago;
    // most gaps are short, one pause lasts 75 minutes.
    const input = {
      prefixTokens: 34_000,
      gapsMs: [...Array(40).fill(30_000), 75 * MINUTE],
      pricing: STANDARD,
      protectedTokens: 33_800,
      protectedForMs: 55 * MINUTE,
    };
    const plan = planKeepWarm(input);
    expect(plan).toMatchObject({ action: 'ping', keeps: 'long-entry', pings: 1, scheduleMs: [55 * MINUTE - 20_000] });
    // The 75-minute pause: the ping reads the kept part and re-writes the rest, so does the return.
    const pause = 2 * (0.1 * 33_800 + 1.25 * 200) + 8;
    expect(plan.expectedCost.ping).toBeCloseTo((40 * 0.1 * 34_000 + pause) / 41, 6);
    // Without the entry's part nothing outlives the pause, and twelve short pings do not pay.
    const unprotected = planKeepWarm({ ...input, protectedTokens: 0 });
    expect(unprotected.action).toBe('let-expire');
    expect(unprotected.keeps).toBeNull();
    expect(() => planKeepWarm({ ...input, protectedTtlMs: 0 })).toThrow('protectedTtlMs');
  });

  it('refuses input it cannot price, naming the field', () => {
    expect(() => planKeepWarm({ prefixTokens: -1, gapsMs: [], pricing: STANDARD })).toThrow(ValidationError);
    expect(() => planKeepWarm({ prefixTokens: 10, gapsMs: [1, Number.NaN], pricing: STANDARD })).toThrow('gapsMs[1]');
    expect(() => planKeepWarm({ prefixTokens: 10, gapsMs: [], pricing: { ...STANDARD, read: -0.1 } })).toThrow('pricing.read');
    expect(() => planKeepWarm({ prefixTokens: 10, gapsMs: [], pricing: STANDARD, maxPings: 1.5 })).toThrow('maxPings');
    expect(() => planKeepWarm({ prefixTokens: 10, gapsMs: [], pricing: STANDARD, ttlMs: 0 })).toThrow('ttlMs');
  });
});
