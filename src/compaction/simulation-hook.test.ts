import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { contextWindowFor } from './context-windows.js';
import { createSimulationCompactionHook } from './simulation-hook.js';

describe('cachet simulate --compaction hook', () => {
  it('runs the pipeline synchronously inside the simulator and reports its events on the bus', async () => {
    const workload = await loadWorkload('long-session-idle-gaps');
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
    // Two runs of the 384-request session, the compacted one also measuring its own ideal.
  }, 240_000);

  it('takes the window from the model table', () => {
    expect(contextWindowFor('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowFor('openai/gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('unknown-model')).toBe(128_000);
  });
});
