import { describe, expect, it } from 'vitest';
import type { CachetEvent, EventType } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { fillReadTurns, idlePlanningPipeline, makeTestSession } from './test-support.js';

const counter = anthropicEstimator();
const MINUTE = 60_000;

/** A session at `utilisation` of its window whose first request met a hot cache (above light: the rewrite skipped). */
async function afterFirstRequest(utilisation: number) {
  const harness = makeTestSession();
  fillReadTurns(harness.session, 12, 120);
  const pipeline = idlePlanningPipeline(harness.session, utilisation, counter);
  const first = await pipeline.beforeRequest(harness.session, { now: harness.now, cacheHot: true });
  expect(first.action).toBe(utilisation >= 0.5 ? 'skipped' : 'none');
  return { ...harness, pipeline, t0: harness.now };
}

function ofType<T extends EventType>(events: CachetEvent[], type: T): Array<CachetEvent<T>> {
  return events.filter((event) => event.type === type) as Array<CachetEvent<T>>;
}

describe('compaction timed by the cache (planIdle)', () => {
  it('compacts right before expiry when the summary still reads the warm parent, and says so in the events', async () => {
    const { session, pipeline, events, t0 } = await afterFirstRequest(0.55);
    const timing = pipeline.planIdle(session, {
      now: t0,
      priorGapsMs: [20 * MINUTE, 30 * MINUTE, 40 * MINUTE],
      remainingRequests: 20,
      summaryCost: { warm: 500, cold: 50_000 },
    });
    expect(timing?.choice).toBe('compact-before-expiry');
    expect(timing?.compactAtMs).toBe(5 * MINUTE - 20_000);
    const during = await pipeline.compactIdle(session, { now: t0 + (timing?.compactAtMs ?? 0) });
    expect(during.action).toBe('applied');
    expect(ofType(events, 'compaction.planned').at(-1)?.payload.timing?.choice).toBe('compact-before-expiry');
    const applied = ofType(events, 'compaction.applied').at(-1)?.payload;
    expect(applied?.timing?.expectedCost.compactBeforeExpiry).toBeLessThan(applied?.timing?.expectedCost.compactWhileCold ?? 0);
    // A compaction in a pause is no request: the next one is still the second, and carries no stale timing.
    expect(pipeline.state(session).requestIndex).toBe(1);
    expect(pipeline.state(session).lastRequestAt).toBe(t0);
    const next = await pipeline.beforeRequest(session, { now: t0 + 30 * MINUTE });
    expect(next.events.some((event) => 'timing' in (event.payload as object))).toBe(false);
  });

  it('keeps the cache warm over short pauses when few requests are left and the summary is dear; the return meets it warm', async () => {
    const { session, pipeline, events, t0 } = await afterFirstRequest(0.55);
    const timing = pipeline.planIdle(session, {
      now: t0,
      priorGapsMs: [6 * MINUTE, 6 * MINUTE, 7 * MINUTE],
      remainingRequests: 2,
      summaryCost: { warm: 100_000, cold: 100_000 },
    });
    expect(timing).toMatchObject({ choice: 'keep-warm', keepWarmAction: 'ping', pings: 1 });
    // Six minutes later, no cacheHot given: the ping held the entry, so the rewrite waits.
    const back = await pipeline.beforeRequest(session, { now: t0 + 6 * MINUTE });
    expect(back.action).toBe('skipped');
    expect(back.cacheHot).toBe(true);
    expect(ofType(events, 'compaction.planned').at(-1)?.payload).toMatchObject({
      cacheState: 'hot',
      timing: { choice: 'keep-warm' },
    });
  });

  it('compacts while cold when the cold summary call costs least; the applied event carries the prices compared', async () => {
    const { session, pipeline, events, t0 } = await afterFirstRequest(0.55);
    const timing = pipeline.planIdle(session, {
      now: t0,
      priorGapsMs: [20 * MINUTE, 30 * MINUTE, 40 * MINUTE],
      remainingRequests: 20,
      summaryCost: { warm: 50_000, cold: 0 },
      inputPerMTok: 3,
    });
    expect(timing?.choice).toBe('compact-while-cold');
    const back = await pipeline.beforeRequest(session, { now: t0 + 30 * MINUTE });
    expect(back.action).toBe('applied');
    const applied = ofType(events, 'compaction.applied').at(-1)?.payload;
    expect(applied?.timing?.choice).toBe('compact-while-cold');
    expect(applied?.timing?.expectedCostUsd?.compactWhileCold).toBeGreaterThan(0);
  });

  it('learns the session’s own gaps from its requests, and has nothing to time below the thresholds', async () => {
    const { session, pipeline, t0 } = await afterFirstRequest(0.55);
    await pipeline.beforeRequest(session, { now: t0 + 2 * MINUTE, cacheHot: true });
    const timing = pipeline.planIdle(session, { now: t0 + 2 * MINUTE });
    expect(timing?.gapsPriced).toBe(1);
    const low = await afterFirstRequest(0.2);
    expect(low.pipeline.planIdle(low.session, { now: low.t0, priorGapsMs: [10 * MINUTE] })).toBeNull();
    expect(() => pipeline.planIdle(session, { remainingRequests: 0 })).toThrow(ValidationError);
  });
});
