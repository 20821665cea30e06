import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { PingProbe } from '../simulate/idle-pings.js';
import { KEEP_ALIVE_BASE, keepAliveSchedule } from '../simulate/keep-alive-strategy.js';
import { type SimulationResult, simulateWorkload } from '../simulate/simulate-workload.js';
import { simulationBaseline } from '../simulate/simulation-baseline.js';
import type { StrategyName } from '../simulate/strategy.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { runDemoPool } from './demo-pool.js';

/** On this workload Aider's pings fire (pauses past 5 minutes) and pi's warming never pays off. */
const WORKLOAD = 'claims-agent-bedrock';
const STRATEGIES: StrategyName[] = ['markers', 'pi', 'pi-warming', 'aider-keepalive'];
const sessionIdOf = (workload: string, strategy: StrategyName) => `t/${workload}/${strategy}`;

async function pooled(): Promise<{ results: SimulationResult[]; events: CachetEvent[][] }> {
  let handed: { results: SimulationResult[]; events: CachetEvent[][] } | null = null;
  await runDemoPool({ workloads: [WORKLOAD], strategies: STRATEGIES, run: 't', sessionIdOf, events: true }, 1, {
    onProgress: () => {},
    onRunDone: () => {},
    onWorkload: async (_index, results, events) => {
      handed = { results, events };
    },
  });
  if (!handed) throw new Error('the pool handed nothing over');
  return handed;
}

describe('pinging designs that send no ping reuse their base strategy’s run', () => {
  it('the probe fires exactly when the design pings, and the pool hands over what each design’s own run gives', async () => {
    const workload = await loadWorkload(WORKLOAD);
    const baseline = simulationBaseline(workload, workload.provider, workload.model);
    const direct = STRATEGIES.map((strategy) => {
      const events: CachetEvent[] = [];
      const bus = new EventBus();
      bus.onAny((event) => events.push(event));
      const sessionId = sessionIdOf(WORKLOAD, strategy);
      return { result: simulateWorkload(workload, { strategy, baseline, bus, sessionId, labels: { run: 't' } }), events };
    });
    const fired: Record<string, boolean> = {};
    for (const design of ['pi-warming', 'aider-keepalive'] as const) {
      const probe = new PingProbe(workload.provider, keepAliveSchedule(design, workload.provider, workload.model));
      simulateWorkload(workload, { strategy: KEEP_ALIVE_BASE[design], baseline, pingProbes: [probe] });
      fired[design] = probe.fired;
      const sent = direct[STRATEGIES.indexOf(design)]?.result.pings.length ?? 0;
      expect({ design, fired: probe.fired }).toEqual({ design, fired: sent > 0 });
    }
    // Both branches are taken: one design's run is reused, the other's is run.
    expect(fired).toEqual({ 'pi-warming': false, 'aider-keepalive': true });

    const handed = await pooled();
    expect(handed.results).toEqual(direct.map((run) => run.result));
    expect(handed.events).toEqual(direct.map((run) => run.events));
  }, 120_000);
});
