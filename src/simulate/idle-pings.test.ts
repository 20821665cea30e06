import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { simulateWorkload } from './simulate-workload.js';
import { simulationBaseline } from './simulation-baseline.js';

const claims = await loadWorkload('claims-agent-bedrock');
// The oracle's search is the slow part: once for both strategies.
const baseline = simulationBaseline(claims, claims.provider, claims.model);

function keepalives(strategy: 'cachet' | 'aider-keepalive') {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const result = simulateWorkload(claims, { strategy, bus, baseline });
  return { result, events: events.filter((event) => event.type === 'cache.keepalive') };
}

describe('simulated keep-alive pings', () => {
  it('publish one cache.keepalive event per ping, as startKeepWarm does, with its cost and the period’s spend', () => {
    const { result, events } = keepalives('aider-keepalive');
    expect(result.pings.length).toBeGreaterThan(0);
    expect(events).toHaveLength(result.pings.length);
    let spent = 0;
    events.forEach((event, index) => {
      const ping = result.pings[index]!;
      const previous = result.pings[index - 1];
      const samePeriod = previous?.afterTurn === ping.afterTurn && previous.afterStep === ping.afterStep;
      spent = (samePeriod ? spent : 0) + ping.costUsd;
      expect(event.at).toBe(ping.at);
      expect(event.sessionId).toBe(`${claims.name}/aider-keepalive/bedrock`);
      expect(event.payload).toMatchObject({
        provider: 'bedrock',
        model: claims.model,
        prefixTokens: ping.cacheReadTokens + ping.cacheWriteTokens,
        costUsd: ping.costUsd,
        sent: true,
        error: null,
        // Aider prices nothing: its schedule is fixed.
        expectedSavingUsd: null,
      });
      expect((event.payload as { spentUsd: number }).spentUsd).toBeCloseTo(spent, 12);
      expect((event.payload as { ping: number }).ping).toBe(
        samePeriod ? (events[index - 1]!.payload as { ping: number }).ping + 1 : 1,
      );
    });
  });

  it('carry the keep-warm plan’s expected saving for Cachet’s pings', () => {
    const { result, events } = keepalives('cachet');
    expect(events).toHaveLength(result.pings.length);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect((event.payload as { expectedSavingUsd: number }).expectedSavingUsd).toBeGreaterThan(0);
  });
});
