import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { assemble } from '../session/assemble.js';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { contextWindowFor } from './context-windows.js';
import { measureRequest } from './request-tokens.js';
import { createSimulationCompactionHook } from './simulation-hook.js';
import { fileText, makeTestSession, toolCall, toolResult } from './test-support.js';

const MINUTE = 60_000;

describe('cachet simulate --compaction hook', () => {
  it('runs the pipeline synchronously inside the simulator and reports its events on the bus', async () => {
    // Its first 60 of 200 turns (14 of its 50 pauses past the 5-minute TTL): the hook's work per
    // request is the same at any length, and the window below is set from this session's own
    // peak, so compaction still has to act. The whole day runs in `npm run bench -- compaction-timing`.
    const full = await loadWorkload('long-session-idle-gaps');
    const workload = { ...full, turns: full.turns.slice(0, 60) };
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => events.push(event));
    // The ideal and the oracle once for both runs, as the demo shares them across strategies.
    const baseline = simulationBaseline(workload, workload.provider, workload.model);
    const plain = simulateWorkload(workload, { strategy: 'cachet', baseline });
    const peak = Math.max(...plain.requests.map((request) => request.inputTokens));
    // A window the uncompacted session outgrows, so compaction must act.
    const windowTokens = Math.round(peak * 0.8);
    const hook = createSimulationCompactionHook({ provider: 'anthropic', model: workload.model, windowTokens });
    const result = simulateWorkload(workload, { strategy: 'cachet', bus, compaction: hook, baseline });
    expect(result.requests).toHaveLength(plain.requests.length);
    const types = new Set(events.map((event) => event.type));
    expect(types.has('compaction.planned')).toBe(true);
    expect(types.has('compaction.applied')).toBe(true);
    expect(types.has('checkpoint.created')).toBe(true);
    expect(Math.max(...result.requests.map((request) => request.inputTokens))).toBeLessThan(peak);
  }, 240_000);

  it('takes the window from the model table', () => {
    expect(contextWindowFor('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowFor('openai/gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('unknown-model')).toBe(128_000);
  });
});

/** A session at 55% of its window, its first request and a return 30 minutes later through the hook. */
function pauseThroughHook(timeByCache: boolean) {
  const harness = makeTestSession();
  for (let turn = 0; turn < 12; turn++) {
    harness.session.appendUserText(`Instruction ${turn}: look at file_${turn}.ts`);
    harness.session.append(toolCall(`t${turn}`, `file_${turn}.ts`));
    harness.session.append({ role: 'user', content: [toolResult(`t${turn}`, fileText(120, `f${turn}_`))] });
    harness.session.append({ role: 'assistant', content: [{ type: 'text', text: `Read file_${turn}.ts.` }] });
  }
  const counter = anthropicEstimator();
  const hook = createSimulationCompactionHook({
    provider: 'anthropic',
    model: harness.session.model,
    counter,
    windowTokens: Math.round(measureRequest(assemble(harness.session), counter).total / 0.55),
    lightTruncateTokens: 800,
    // The first request is not compacted (the rewrite saves too small a share), so the pause has one due.
    minSavingShare: 0.9,
    priorGapsMs: [20 * MINUTE, 30 * MINUTE, 40 * MINUTE],
    summaryCost: { warm: 0, cold: 1_000_000 },
    timeByCache,
  });
  const t0 = harness.now;
  hook({ driver: { name: 'cachet', session: harness.session }, at: t0, remainingRequests: 20 });
  harness.session.appendUserText('Back after half an hour.');
  hook({ driver: { name: 'cachet', session: harness.session }, at: t0 + 30 * MINUTE, remainingRequests: 19 });
  const planned = harness.events.filter(
    (event): event is CachetEvent<'compaction.planned'> => event.type === 'compaction.planned',
  );
  return planned.map((event) => [event.at - t0, event.payload.timing?.choice ?? null]);
}

describe('cachet simulate --compaction: pauses timed by the cache', () => {
  it('plans each pause and compacts right before expiry when that was chosen and the user is still away', () => {
    // The request at 0, the compaction in the pause (timed), the return at 30 minutes.
    expect(pauseThroughHook(true)).toEqual([
      [0, null],
      [5 * MINUTE - 20_000, 'compact-before-expiry'],
      [30 * MINUTE, null],
    ]);
    // With timeByCache off, nothing happens in the pause: the thresholds act at the return.
    expect(pauseThroughHook(false)).toEqual([
      [0, null],
      [30 * MINUTE, null],
    ]);
  });
});
