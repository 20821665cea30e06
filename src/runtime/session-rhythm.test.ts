import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { recordEvents } from '../trace/record-events.js';
import { openSqliteTraceStore } from '../trace/sqlite-trace-store.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { workloadRequests } from '../workloads/workload.js';
import { sessionRhythmFromTrace } from './session-rhythm.js';

describe('sessionRhythmFromTrace', () => {
  it('reads the gaps and turn shape of recorded sessions from a real SQLite trace store', async () => {
    const workload = await loadWorkload('cms-agent');
    const store = openSqliteTraceStore(':memory:');
    const bus = new EventBus();
    const recorder = recordEvents(bus, store);
    simulateWorkload(workload, { strategy: 'cachet', bus, sessionId: 'earlier-session' });
    await recorder.stop();

    const rhythm = await sessionRhythmFromTrace(store);
    const requests = workloadRequests(workload);
    const times = requests.map((request) => request.step.at);
    expect(rhythm.sessions).toBe(1);
    expect(rhythm.gapsMs).toEqual(times.slice(1).map((time, index) => time - (times[index] as number)));
    expect(rhythm.requestsPerSession).toBe(requests.length);
    expect(rhythm.stepsPerTurn).toBeCloseTo(requests.length / workload.turns.length);
    await store.close();
  });

  it('is neutral for an empty store', async () => {
    const store = openSqliteTraceStore(':memory:');
    expect(await sessionRhythmFromTrace(store)).toEqual({ gapsMs: [], sessions: 0, stepsPerTurn: 1, requestsPerSession: 0 });
    await store.close();
  });
});
