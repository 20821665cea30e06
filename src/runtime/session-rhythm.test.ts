import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { simulateWorkload } from '../simulate/simulate-workload.js';
import { recordEvents } from '../trace/record-events.js';
import { openSqliteTraceStore } from '../trace/sqlite-trace-store.js';
import type { RequestSummary, TraceStore } from '../trace/trace-store.js';
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
    // Every gap is labelled once by the request before it, and the turn ends are the gaps into a new turn.
    expect(rhythm.kindGapsMs['turn-start'].length + rhythm.kindGapsMs['tool-step'].length).toBe(rhythm.gapsMs.length);
    expect(rhythm.turnEndGapsMs).toHaveLength(workload.turns.length - 1);
    await store.close();
  });

  it('labels each gap by the request before it (turn start or tool step) and marks the gaps after turn ends', async () => {
    // Two sessions: turns of 2 and 1 requests, then one turn of 3 (times in minutes).
    const sessions: Record<string, Array<[turn: number, atMinutes: number]>> = {
      a: [
        [1, 0],
        [1, 1],
        [2, 13],
      ],
      b: [
        [1, 100],
        [1, 100.5],
        [1, 101],
      ],
    };
    const store = {
      sessions: async () => Object.keys(sessions).map((sessionId) => ({ sessionId })),
      requests: async (sessionId: string) =>
        (sessions[sessionId] ?? []).map(([turn, minutes]) => ({ sessionId, turn, at: minutes * 60_000 }) as RequestSummary),
    } as unknown as TraceStore;
    const rhythm = await sessionRhythmFromTrace(store);
    expect(rhythm.gapsMs).toEqual([60_000, 720_000, 30_000, 30_000]);
    // a: 0 → 1 follows turn 1's start, 1 → 13 a tool step that ended the turn; b: a start, then a step.
    expect(rhythm.kindGapsMs).toEqual({ 'turn-start': [60_000, 30_000], 'tool-step': [720_000, 30_000] });
    expect(rhythm.turnEndGapsMs).toEqual([720_000]);
    expect(rhythm.stepsPerTurn).toBeCloseTo(6 / 3);
  });

  it('is neutral for an empty store', async () => {
    const store = openSqliteTraceStore(':memory:');
    expect(await sessionRhythmFromTrace(store)).toEqual({
      gapsMs: [],
      kindGapsMs: { 'turn-start': [], 'tool-step': [] },
      turnEndGapsMs: [],
      sessions: 0,
      stepsPerTurn: 1,
      requestsPerSession: 0,
    });
    await store.close();
  });
});
