import { describe, expect, it } from 'vitest';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { KeepWarmUnsupportedError, keepWarmBody } from './keep-warm.js';
import { sharedCounter, zoneTokensOf } from './prepare-request.js';
import { SessionTtl } from './session-ttl.js';

const MINUTE = 60_000;
const MODEL = 'claude-sonnet-4-5';
/** Half the gaps are 10-minute pauses: a re-write would repay the hour, two pings cost less. */
const GAPS = { gapsMs: [...Array(5).fill(10 * MINUTE), ...Array(5).fill(30_000)] };

function conversation(thinking: 'adaptive' | { type: 'enabled'; budgetTokens: number } | null) {
  const session = new Session({
    id: 'keep-warm-thinking',
    model: MODEL,
    global: { system: [{ label: 'persona', text: 'You reconcile invoices against purchase orders. '.repeat(300) }] },
    params: {
      maxTokens: 8192,
      ...(thinking === null ? {} : { thinking: thinking === 'adaptive' ? { type: 'adaptive' as const } : thinking }),
    },
    clock: () => 0,
  });
  session.appendUserText('Reconcile March.');
  const request = assemble(session, { now: 0 });
  return { session, assembled: { request, zoneTokens: zoneTokensOf(request, sharedCounter('anthropic', MODEL)) } };
}

describe('SessionTtl with keep-warm on a session with extended thinking', () => {
  it('prices the 1-hour write against the pings only where they can be sent', () => {
    // Without thinking, pings (a read each) beat the 1-hour write premium: the history is written at 5 minutes.
    const plain = conversation(null);
    const warm = new SessionTtl(plain.session, { provider: 'anthropic', prior: GAPS });
    warm.keptWarm();
    expect(warm.choose(plain.assembled)).toMatchObject({ ttl: '5m' });
    expect(keepWarmBody(plain.session).max_tokens).toBe(0);

    // With thinking no ping can be sent (keepWarmBody refuses the session): the choice must be the one without keep-warm.
    for (const thinking of ['adaptive', { type: 'enabled', budgetTokens: 4096 }] as const) {
      const thinks = conversation(thinking);
      expect(() => keepWarmBody(thinks.session)).toThrow(KeepWarmUnsupportedError);
      const reference = new SessionTtl(thinks.session, { provider: 'anthropic', prior: GAPS }).choose(thinks.assembled);
      expect(reference.ttl).toBe('1h');
      const kept = new SessionTtl(thinks.session, { provider: 'anthropic', prior: GAPS });
      kept.keptWarm();
      expect(kept.choose(thinks.assembled), JSON.stringify(thinking)).toEqual(reference);
    }
  });
});
