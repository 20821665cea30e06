import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { openTraceStore } from '../trace/open-trace-store.js';
import { createApp } from './create-app.js';

const breakEvent = (sessionId: string, seq: number, cause: 'clock' | 'history-edited', serverType?: string): CachetEvent =>
  ({
    type: 'cache.break',
    sessionId,
    at: 1_000 + seq,
    seq,
    payload: {
      turn: seq,
      step: 0,
      cause,
      zone: 'system',
      path: 'system[0]',
      byteOffset: 3,
      before: 'a',
      after: 'b',
      missedTokens: 100,
      ...(serverType ? { serverCause: { type: serverType, missedTokens: 100 } } : {}),
    },
  }) as CachetEvent;

describe('GET /analytics/cause_agreement', () => {
  it("counts agreement between Cachet's causes and the provider's, per session, from the stored events", async () => {
    const store = await openTraceStore(':memory:');
    try {
      await store.appendBatch([
        breakEvent('s1', 0, 'clock', 'system_changed'),
        breakEvent('s1', 1, 'history-edited', 'system_changed'),
        breakEvent('s1', 2, 'clock'),
        breakEvent('s2', 0, 'clock', 'tools_changed'),
      ]);
      const app = createApp({ store });
      const one = await (await app.request('/analytics/cause_agreement?session=s1')).json();
      expect(one).toMatchObject({ diagnosed: 2, agree: 1, disagree: 1, agreementRate: 0.5 });
      expect(one.disagreements).toEqual([{ cause: 'history-edited', serverType: 'system_changed', count: 1 }]);
      const all = await (await app.request('/analytics/cause_agreement')).json();
      expect(all).toMatchObject({ diagnosed: 3, agree: 1, disagree: 2 });
    } finally {
      await store.close();
    }
  });
});
