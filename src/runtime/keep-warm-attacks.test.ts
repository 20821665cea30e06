import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import type { CacheMultipliers } from '../providers/shared/price-row.js';
import { Session } from '../session/session.js';
import { startKeepWarm } from './keep-warm.js';
import { KEEP_WARM_DEFAULTS, type KeepWarmInput, planKeepWarm } from './plan-keep-warm.js';
import { manualTimers } from './test-support/manual-timers.js';

/**
 * Attacks on keep-warm planned part-way through an idle period (`idleMs`: the caller, or the
 * proxy after a long reply, plans some time after the last request). Reference: the idle period
 * replayed the plain way — the entry lives `ttl` after the last request, each ping sent reads it
 * while it lives (and refreshes it) or re-writes it once it has expired, the return reads or
 * re-writes — with the pings sent when they really are: a ping planned for a time already past
 * goes out now (`startKeepWarm` and the proxy send it at once), none was sent before now.
 */

const MINUTE = 60_000;
const STANDARD: CacheMultipliers = { read: 0.1, write5m: 1.25, write1h: 2 };

interface Replay {
  prefixTokens: number;
  pricing: CacheMultipliers;
  ttlMs: number;
  overhead: number;
}

/** One idle period's cost, input-token equivalents, with pings sent at `sentAt` (ms after the last request). */
function replayCost(replay: Replay, sentAt: readonly number[], gap: number): number {
  const { prefixTokens, pricing, ttlMs, overhead } = replay;
  let aliveUntil = ttlMs;
  let cost = 0;
  for (const at of sentAt) {
    if (at >= gap) break;
    cost += overhead + (at <= aliveUntil ? pricing.read : pricing.write5m) * prefixTokens;
    aliveUntil = at + ttlMs;
  }
  return cost + (gap <= aliveUntil ? pricing.read : pricing.write5m) * prefixTokens;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The plan's pings as they really go out when planned `idle` ms after the last request. */
const sentTimes = (scheduleMs: readonly number[], idle: number) => scheduleMs.map((at) => Math.max(at, idle));

function check(input: KeepWarmInput & { gapsMs: number[] }) {
  const plan = planKeepWarm(input);
  const idle = input.idleMs ?? 0;
  const gaps = input.gapsMs.filter((gap) => gap > idle);
  if (gaps.length === 0 || plan.action !== 'ping') return;
  const replay: Replay = {
    prefixTokens: input.prefixTokens,
    pricing: input.pricing,
    ttlMs: input.ttlMs ?? 5 * MINUTE,
    overhead: KEEP_WARM_DEFAULTS.pingOverheadTokens,
  };
  const letExpire = mean(gaps.map((gap) => replayCost(replay, [], gap)));
  const pinged = mean(gaps.map((gap) => replayCost(replay, sentTimes(plan.scheduleMs, idle), gap)));
  // The plan prices its pings as they will really be sent, and pings only when that pays.
  expect(plan.expectedCost.ping).toBeCloseTo(pinged, 3);
  expect(pinged).toBeLessThan(letExpire + 1e-6);
  // No two pings go out at the same instant (the second would only repeat the first).
  const sent = sentTimes(plan.scheduleMs, idle);
  expect(new Set(sent).size).toBe(sent.length);
}

describe('planKeepWarm part-way through an idle period (idleMs)', () => {
  it('an entry that already expired unpinged is not "kept" by pings: a ping now would re-write it', () => {
    // Returns after 7–11 minutes: at the start of the pause, pings before the 5-minute expiry pay.
    const gapsMs = [7, 8, 9, 9.5, 10, 11].map((minutes) => minutes * MINUTE);
    expect(planKeepWarm({ prefixTokens: 200_000, gapsMs, pricing: STANDARD }).action).toBe('ping');
    // Six minutes in, nothing was sent and the entry is gone: pinging now re-writes 200k tokens and then reads them again.
    for (const idleMs of [6 * MINUTE, 9.5 * MINUTE]) check({ prefixTokens: 200_000, gapsMs, pricing: STANDARD, idleMs });
  });

  it('a pause planned late sends each ping at its own time (none twice at once)', () => {
    check({ prefixTokens: 200_000, gapsMs: [4.9, 9, 14, 20].map((m) => m * MINUTE), pricing: STANDARD, idleMs: 4.8 * MINUTE });
  });

  it('prices the pings it plans as the replay of the idle period does, and pings only when that pays', () => {
    const grid = (max: number) => fc.integer({ min: 0, max }).map((steps) => steps * 10_000);
    fc.assert(
      fc.property(
        fc.record({
          prefixTokens: fc.integer({ min: 1_000, max: 300_000 }),
          gapsMs: fc.array(grid(400), { minLength: 1, maxLength: 30 }),
          idleMs: fc.oneof(fc.constant(0), grid(120)),
          ttlMs: fc.constantFrom(5 * MINUTE, 60 * MINUTE),
          pricing: fc.constant(STANDARD),
        }),
        (input) => check(input),
      ),
      {
        numRuns: propertyRuns(200),
        examples: [
          [
            {
              prefixTokens: 200_000,
              gapsMs: [7 * MINUTE, 8 * MINUTE, 10 * MINUTE],
              idleMs: 6 * MINUTE,
              ttlMs: 5 * MINUTE,
              pricing: STANDARD,
            },
          ],
        ],
      },
    );
  });
});

describe('startKeepWarm started after the entry expired', () => {
  it('sends no ping: each would re-write the whole prefix the return re-writes anyway', async () => {
    const session = new Session({
      id: 'late-keep-warm',
      model: 'claude-sonnet-4-5',
      global: { system: [{ label: 'persona', text: 'You review pull requests carefully and briefly. '.repeat(400) }] },
      clock: () => Date.parse('2026-11-25T10:00:00Z'),
    });
    session.appendUserText('Review the change to the invoice totals.');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'The rounding moved to the line level.' }] });
    const timers = manualTimers();
    const sent: unknown[] = [];
    const warm = startKeepWarm(session, {
      send: async (body) => {
        sent.push(body);
      },
      gapsMs: [7, 8, 9, 9.5, 10, 11].map((minutes) => minutes * MINUTE),
      pricing: STANDARD,
      inputPerMTok: 3,
      idleMs: 9.5 * MINUTE,
      timers,
    });
    await timers.runAll();
    expect(sent).toHaveLength(0);
    expect(warm.plan.action).not.toBe('ping');
  });
});

describe('startKeepWarm: a budget it cannot price', () => {
  it('refuses a budget without the input rate (pings it cannot price would pass any budget, $0 included)', () => {
    const session = new Session({
      id: 'unpriced-budget',
      model: 'claude-sonnet-4-5',
      global: { system: [{ label: 'persona', text: 'You review pull requests carefully and briefly. '.repeat(400) }] },
    });
    session.appendUserText('Review the change to the invoice totals.');
    const timers = manualTimers();
    const sent: unknown[] = [];
    const start = () =>
      startKeepWarm(session, {
        send: async (body) => {
          sent.push(body);
        },
        gapsMs: [7, 8, 9].map((minutes) => minutes * MINUTE),
        pricing: STANDARD,
        budgetUsd: 0,
        timers,
      });
    expect(start).toThrow(ValidationError);
    expect(start).toThrow(/budgetUsd/);
    expect(sent).toHaveLength(0);
  });
});
