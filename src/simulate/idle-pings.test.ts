import { describe, expect, it } from 'vitest';
import type { CacheModel } from '../cache/models/cache-verdict.js';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { emptyUsage } from '../model/usage.js';
import { loadWorkload } from '../workloads/load-workload.js';
import { IdlePings } from './idle-pings.js';
import { PING_TEXT } from './side-request-body.js';
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

describe('IdlePings builds a ping body only when a ping is due', () => {
  const usage = emptyUsage();
  const judgedBy = (judged: unknown[]) => ({
    judge: (body: unknown) => {
      judged.push(body);
      return { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, usage } as unknown as ReturnType<CacheModel['judge']>;
    },
  });
  /** A parent body that counts how often its history is read (a ping body copies it). */
  const parentOf = (lastRole: 'user' | 'assistant') => {
    const reads = { count: 0 };
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'Hello.' }] },
      { role: lastRole, content: [{ type: 'text', text: 'More.' }] },
    ];
    const body = { model: 'claude-sonnet-4-5', max_tokens: 100 } as Record<string, unknown>;
    Object.defineProperty(body, 'messages', {
      enumerable: true,
      get: () => {
        reads.count++;
        return messages;
      },
    });
    return { body, reads };
  };
  const scheduled = { times: [10, 20], expectedSavingUsd: null };

  it('sends the parent body with the ping text and no output, and reads the history once per idle period', () => {
    const judged: unknown[] = [];
    const pings = new IdlePings(judgedBy(judged), 'anthropic');
    const parent = parentOf('user');
    pings.schedule(scheduled, { body: parent.body, model: 'claude-sonnet-4-5', turn: 1, step: 1 });
    expect(parent.reads.count).toBe(0);
    pings.sendBefore(15, false);
    expect(judged).toHaveLength(1);
    const readsForTheBody = parent.reads.count;
    expect(readsForTheBody).toBeGreaterThan(0);
    pings.sendBefore(30, true);
    expect(judged).toHaveLength(2);
    expect(judged[0]).toBe(judged[1]);
    expect(parent.reads.count).toBe(readsForTheBody);
    expect(judged[0]).toMatchObject({ max_tokens: 0 });
    expect((judged[0] as { messages: Array<{ content: unknown[] }> }).messages[1]!.content.at(-1)).toEqual({
      type: 'text',
      text: PING_TEXT,
    });
  });

  it('never builds the body when the next request comes first, and sends nothing on a body it cannot fork', () => {
    const judged: unknown[] = [];
    const pings = new IdlePings(judgedBy(judged), 'anthropic');
    const early = parentOf('user');
    pings.schedule(scheduled, { body: early.body, model: 'claude-sonnet-4-5', turn: 1, step: 1 });
    pings.sendBefore(5, true);
    expect(early.reads.count).toBe(0);
    const unforkable = parentOf('assistant');
    pings.schedule(scheduled, { body: unforkable.body, model: 'claude-sonnet-4-5', turn: 2, step: 1 });
    pings.sendBefore(15, false);
    pings.sendBefore(30, true);
    expect(judged).toHaveLength(0);
    expect(pings.sent).toHaveLength(0);
  });
});
