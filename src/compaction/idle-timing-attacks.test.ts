import { describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { chooseIdleCompaction } from './idle-timing.js';
import { fillReadTurns, idlePlanningPipeline, makeTestSession, toolCall, toolResult } from './test-support.js';

const MINUTE = 60_000;
const STANDARD = { read: 0.1, write5m: 1.25, write1h: 2 };
/** 120k tokens compacted to 40k, long pauses ahead: at the pause's start, compacting before expiry (the summary forks warm) wins. */
const PAUSE = {
  prefixTokens: 120_000,
  compactedPrefixTokens: 40_000,
  staticTokens: 8_000,
  tokensToRebill: 32_000,
  gapsMs: [20 * MINUTE, 25 * MINUTE, 30 * MINUTE],
  remainingRequests: 20,
  pricing: STANDARD,
  summaryCost: { warm: 14_000, cold: 150_000 },
};

describe('chooseIdleCompaction planned after the entry expired (idleMs ≥ the TTL)', () => {
  it('at the pause’s start: compact before expiry, with the warm summary', () => {
    for (const idleMs of [0, 4 * MINUTE, 4.9 * MINUTE]) {
      const timing = chooseIdleCompaction({ ...PAUSE, idleMs });
      expect(timing.choice).toBe('compact-before-expiry');
      expect(timing.compactAtMs).toBeLessThan(5 * MINUTE);
    }
  });

  it.each([5, 5.5, 8, 30])(
    '%s minutes in: no warm summary and nothing to keep warm, so nothing beats compacting when cold',
    (minutes) => {
      const timing = chooseIdleCompaction({ ...PAUSE, idleMs: minutes * MINUTE });
      // It chose "before expiry" after expiry, priced with the warm summary (a saving of 136k token equivalents that is not
      // there), or "keep-warm" on a 1-hour write that no longer holds this pause (the pipeline then met the cold return as hot).
      expect(timing.choice).toBe('compact-while-cold');
      expect(timing.compactAtMs).toBeNull();
      expect(timing.expectedCost.keepWarm).toBeNull();
      expect(timing.expectedCost.compactBeforeExpiry).toBeGreaterThanOrEqual(timing.expectedCost.compactWhileCold - 1e-6);
    },
  );
});

describe('planIdle on a session with extended thinking', () => {
  it('prices no keep-warm pings: Anthropic refuses max_tokens: 0 with thinking, so none can be sent', async () => {
    const plan = async (thinking: boolean) => {
      const harness = makeTestSession();
      fillReadTurns(harness.session, 12, 120);
      if (thinking) harness.session.setParams({ maxTokens: 16_000, thinking: { type: 'enabled', budgetTokens: 4_096 } });
      const counter = anthropicEstimator();
      const pipeline = idlePlanningPipeline(harness.session, 0.55, counter);
      await pipeline.beforeRequest(harness.session, { now: harness.now, cacheHot: true });
      return pipeline.planIdle(harness.session, {
        now: harness.now,
        priorGapsMs: [6 * MINUTE, 6 * MINUTE, 7 * MINUTE],
        remainingRequests: 2,
        summaryCost: { warm: 100_000, cold: 100_000 },
      });
    };
    // Without thinking, one ping holds the entry through these pauses (pipeline-idle.test.ts).
    expect(await plan(false)).toMatchObject({ choice: 'keep-warm', keepWarmAction: 'ping', pings: 1 });
    const thinking = await plan(true);
    expect(thinking?.keepWarmAction).not.toBe('ping');
    expect(thinking?.pings).toBe(0);
  });
});

describe('planIdle while tool calls await their results', () => {
  it('plans nothing (it threw a ValidationError: no request can be assembled with unanswered calls)', async () => {
    const harness = makeTestSession();
    fillReadTurns(harness.session, 12, 120);
    harness.session.appendUserText('Clean the build directory.');
    const pipeline = idlePlanningPipeline(harness.session, 0.55, anthropicEstimator());
    await pipeline.beforeRequest(harness.session, { now: harness.now, cacheHot: true });
    // The model asks for a tool the user must approve: the pause starts with the call unanswered.
    harness.session.append(toolCall('pending', 'build/'));
    expect(pipeline.planIdle(harness.session, { now: harness.now, priorGapsMs: [20 * 60_000, 30 * 60_000] })).toBeNull();
    // Once answered, the pause after the next request is planned as usual.
    harness.session.append({ role: 'user', content: [toolResult('pending', 'removed 3 files')] });
    await pipeline.beforeRequest(harness.session, { now: harness.now + 1_000, cacheHot: true });
    harness.session.append({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    expect(() => pipeline.planIdle(harness.session, { now: harness.now + 1_000, priorGapsMs: [20 * 60_000] })).not.toThrow();
  });
});
