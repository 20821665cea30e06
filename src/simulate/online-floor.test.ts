import { describe, expect, it } from 'vitest';
import { ANTHROPIC_CACHE_PRICING } from '../providers/anthropic/models.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { type ChainRequest, OnlineFloor, type ReplyKind, type RequestClass } from './online-floor.js';
import { floorChain, floorDecisions, resampledWorkload, runOnlineFloor, seededRandom } from './online-floor-run.js';

const MINUTE = 60_000;

/** A turn start, then a 1,000-token tool step whose reply ends the turn, then the last request. */
const chain: ChainRequest[] = [
  { at: 0, prefixTokens: 10_000, requestClass: 'turn-start', replyKind: 'tool-call', gapAfterMs: MINUTE },
  { at: MINUTE, prefixTokens: 11_000, requestClass: 'tool-step', replyKind: 'turn-end', gapAfterMs: 20 * MINUTE },
  { at: 21 * MINUTE, prefixTokens: 11_000, requestClass: 'turn-start', replyKind: 'turn-end', gapAfterMs: null },
];

/** After a tool step that ends the turn, `pauses` of 20 gaps are 20-minute pauses and the rest 1 minute. */
function gapsWithPauses(pauses: number) {
  return (requestClass: RequestClass, reply: ReplyKind): number[] => {
    if (requestClass === 'turn-start' && reply === 'tool-call') return [MINUTE];
    if (requestClass !== 'tool-step' || reply !== 'turn-end') return [];
    return Array.from({ length: 20 }, (_, index) => (index < pauses ? 20 * MINUTE : MINUTE));
  };
}

describe('the online floor', () => {
  it('writes 1 hour exactly when the pause probability of the class exceeds the break-even of the price table', () => {
    const fable = { write5m: 1.25, write1h: 2, read: 0.025 };
    for (const pricing of [ANTHROPIC_CACHE_PRICING, fable]) {
      // The tool step writes 1,000 tokens; a pause makes the last request send all 11,000 uncached
      // (nothing earlier was written for an hour) instead of reading them.
      const breakEven = ((pricing.write1h - pricing.write5m) * 1_000) / ((1 - pricing.read) * 11_000);
      for (let pauses = 0; pauses <= 20; pauses++) {
        const floor = new OnlineFloor({ chain, knowledge: 'class', pricing, pings: false, gapsMs: gapsWithPauses(pauses) });
        expect(floor.ttlFor(1, -1, false), `${pauses} of 20 pauses, break-even ${breakEven}`).toBe(
          pauses / 20 > breakEven ? '1h' : '5m',
        );
      }
    }
  });

  it('pings through the pause instead when one ping costs less than the 1-hour premium', () => {
    // Every turn end pauses 8 minutes: one ping (a read of 11,000 at 0.1×) costs 1,108; the premium 750.
    const everyPause = gapsWithPauses(20);
    const small = new OnlineFloor({
      chain,
      knowledge: 'class',
      pricing: ANTHROPIC_CACHE_PRICING,
      pings: true,
      gapsMs: everyPause,
    });
    expect(small.ttlFor(1, -1, false)).toBe('1h');
    const eightMinutes = (requestClass: RequestClass, reply: ReplyKind) =>
      everyPause(requestClass, reply).map((gap) => (gap > MINUTE ? 8 * MINUTE : gap));
    const large: ChainRequest[] = chain.map((request, index) => (index === 0 ? request : { ...request, prefixTokens: 14_000 }));
    const pinging = new OnlineFloor({
      chain: large,
      knowledge: 'class',
      pricing: ANTHROPIC_CACHE_PRICING,
      pings: true,
      gapsMs: eightMinutes,
    });
    // The step writes 4,000: the premium (3,000) is more than a ping (1,408).
    expect(pinging.ttlFor(1, -1, false)).toBe('5m');
    expect(pinging.pingsAfter(1, -1, '5m')).toEqual({ pings: 1, keepLong: false });
  });

  it('carries a 1-hour entry through a gap over an hour with a ping just before it expires, where pings are sent', () => {
    const overAnHour: ChainRequest[] = [
      { at: 0, prefixTokens: 10_000, requestClass: 'turn-start', replyKind: 'tool-call', gapAfterMs: MINUTE },
      { at: MINUTE, prefixTokens: 10_500, requestClass: 'tool-step', replyKind: 'turn-end', gapAfterMs: 75 * MINUTE },
      { at: 76 * MINUTE, prefixTokens: 10_600, requestClass: 'turn-start', replyKind: 'turn-end', gapAfterMs: null },
    ];
    const run = (pings: boolean) => {
      const floor = new OnlineFloor({ chain: overAnHour, knowledge: 'realized-gap', pricing: ANTHROPIC_CACHE_PRICING, pings });
      const decisions = floorDecisions(floor, overAnHour);
      const made = overAnHour.map((request, index) => ({
        ttl: decisions.ttl(index),
        times: decisions.pingsAfter(index, { at: request.at } as Parameters<typeof decisions.pingsAfter>[1]).times,
      }));
      return { made, expected: floor.expectedTokens };
    };
    const pinged = run(true);
    expect(pinged.made[1]?.ttl).toBe('1h');
    // Written at minute 1, the entry expires at minute 61: the first ping 20 s before.
    expect(pinged.made[1]?.times[0]).toBe(61 * MINUTE - 20_000);
    // 12,500 + 2,000 (1-hour write of 500 on a 10,000 read) + a ping (1,050 + 8) + the last read (1,050 + 100).
    expect(pinged.expected).toBeCloseTo(16_708);
    const unpinged = run(false);
    expect(unpinged.made.every((decision) => decision.times.length === 0)).toBe(true);
    // No ping can carry it: the last request sends all 10,600 uncached; the step is written at 5 minutes.
    expect(unpinged.expected).toBeCloseTo(12_500 + 1_000 + 625 + 10_600);
  });

  it('told every gap, it costs what the hindsight oracle does on due-diligence-subagents (the model holds)', async () => {
    const workload = await loadWorkload('due-diligence-subagents');
    const { result } = runOnlineFloor(workload, 'realized-gap');
    expect(result.totals.regret).toBeGreaterThanOrEqual(0);
    expect(result.totals.regret).toBeLessThan(0.005);
  });

  it('redraws gaps from the same class and reply kind, keeping content and subagent timing', async () => {
    const workload = await loadWorkload('due-diligence-subagents');
    const original = floorChain(workload, workload.provider, workload.model);
    const redrawn = resampledWorkload(workload, original, seededRandom(1));
    const again = floorChain(redrawn, workload.provider, workload.model);
    expect(again.map(({ gapAfterMs: _gap, at: _at, ...request }) => request)).toEqual(
      original.map(({ gapAfterMs: _gap, at: _at, ...request }) => request),
    );
    const pools = new Set(original.map((request) => `${request.requestClass}/${request.replyKind}/${request.gapAfterMs}`));
    for (const request of again) {
      if (request.gapAfterMs !== null)
        expect(pools).toContain(`${request.requestClass}/${request.replyKind}/${request.gapAfterMs}`);
    }
    expect(again.map((request) => request.gapAfterMs)).not.toEqual(original.map((request) => request.gapAfterMs));
  });
});
