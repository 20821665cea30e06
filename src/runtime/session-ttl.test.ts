import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { startKeepWarm } from './keep-warm.js';
import { prepareRequest, sharedCounter, zoneTokensOf } from './prepare-request.js';
import { SessionTtl } from './session-ttl.js';
import { chooseHistoryTtl } from './ttl-policy.js';

const MINUTE = 60_000;
const MODEL = 'claude-sonnet-4-5';
/** Earlier sessions: half their gaps were 10-minute pauses — all of them after tool steps, none after turn starts. */
const PRIOR = {
  gapsMs: [...Array(5).fill(30_000), ...Array(5).fill(10 * MINUTE)],
  kindGapsMs: { 'turn-start': Array(5).fill(30_000), 'tool-step': Array(5).fill(10 * MINUTE) },
};

function conversation() {
  let now = 0;
  const session = new Session({
    id: 'session-ttl-test',
    model: MODEL,
    global: { system: [{ label: 'persona', text: 'You reconcile invoices against purchase orders. '.repeat(300) }] },
    clock: () => now,
  });
  const assembled = () => {
    const request = assemble(session, { now });
    return { request, zoneTokens: zoneTokensOf(request, sharedCounter('anthropic', MODEL)) };
  };
  const toolStep = (id: string) => {
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'lookup', input: { po: id } }] });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: 'PO found. '.repeat(40) }] }],
    });
  };
  return { session, assembled, toolStep, at: (ms: number) => (now = ms) };
}

describe('SessionTtl', () => {
  it('takes a TTL decided by the caller for one request and tracks the entry it writes', () => {
    const { session, assembled, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic' });
    session.appendUserText('Reconcile March.');
    // No pause seen: the policy would write 5 minutes; the caller's own policy asks for the hour.
    const choice = ttl.choose(assembled(), { ttl: '1h' });
    expect(choice).toMatchObject({ ttl: '1h', reason: 'fixed 1h TTL' });
    expect(ttl.historyTtl).toBe('1h');
    expect(ttl.longEntry).toMatchObject({ at: 0, model: MODEL });
    at(30_000);
    toolStep('po-1');
    expect(ttl.choose(assembled()).ttl).toBe('5m');
  });

  it('prices the gap after each request on the gaps that followed requests of its kind, the session’s own included', () => {
    const { session, assembled, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic', prior: PRIOR });
    session.appendUserText('Reconcile March.');
    const first = assembled();
    const start = ttl.choose(first);
    // A turn start: 0 of 5 prior gaps after turn starts paused, shrunk towards the overall half (2 pseudo-gaps): 14%.
    expect(start).toMatchObject({ ttl: '5m' });
    expect(start.reason).toContain('14% after requests of this kind');
    // Every gap alike (no kinds), the same request would buy the hour: the kind is what decides.
    const prefixTokens = first.zoneTokens.global + first.zoneTokens.session + first.zoneTokens.history;
    expect(chooseHistoryTtl({ gapsMs: [], priorGapsMs: PRIOR.gapsMs, prefixTokens, newTokens: prefixTokens }).ttl).toBe('1h');

    at(30_000);
    toolStep('po-1');
    const step = ttl.choose(assembled());
    // A tool step: 5 of 5 paused; the overall share is now 5 of 11 (this session's 30 s gap counts): 84%.
    expect(step.reason).toContain('84% after requests of this kind');
    expect(step.ttl).toBe('1h');
    expect(ttl.gapsMs).toEqual([30_000]);

    at(40_000);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'March reconciles.' }] });
    session.appendUserText('Now April.');
    // The session's gap after its turn start joined the turn-start gaps: 0 of 6, overall 5 of 12 → 10%.
    expect(ttl.choose(assembled()).reason).toContain('10% after requests of this kind');
  });

  it('prices the 1-hour write against keep-warm pings once startKeepWarm-style keep-warm is declared', () => {
    const plain = conversation();
    const warm = conversation();
    const gaps = {
      gapsMs: Array(4)
        .fill(10 * MINUTE)
        .concat(Array(4).fill(30_000)),
    };
    const without = new SessionTtl(plain.session, { provider: 'anthropic', prior: gaps });
    const withPings = new SessionTtl(warm.session, { provider: 'anthropic', prior: gaps });
    withPings.keptWarm();
    plain.session.appendUserText('Reconcile March.');
    warm.session.appendUserText('Reconcile March.');
    // Half the gaps pause: the whole prefix re-written would repay the hour, but 2 pings (a read each) cost less.
    expect(without.choose(plain.assembled()).ttl).toBe('1h');
    const choice = withPings.choose(warm.assembled());
    expect(choice.ttl).toBe('5m');
    expect(choice.reason).toContain('pings through a pause');
    // Declared off, keep-warm stays off.
    const off = conversation();
    const never = new SessionTtl(off.session, { provider: 'anthropic', prior: gaps, keepWarm: false });
    never.keptWarm();
    off.session.appendUserText('Reconcile March.');
    expect(never.choose(off.assembled()).ttl).toBe('1h');
  });

  it('counts the requests left, and writes nothing long on the last one', () => {
    const { session, assembled, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic', prior: PRIOR, expectedRequests: 2 });
    session.appendUserText('Reconcile March.');
    const first = ttl.choose(assembled());
    expect(first.reason).not.toBe('no request is expected after this one');
    at(30_000);
    toolStep('po-1');
    expect(ttl.choose(assembled())).toMatchObject({ ttl: '5m', reason: 'no request is expected after this one' });

    const open = conversation();
    const unbounded = new SessionTtl(open.session, { provider: 'anthropic', prior: PRIOR });
    open.session.appendUserText('Reconcile March.');
    unbounded.choose(open.assembled());
    open.at(30_000);
    open.toolStep('po-1');
    expect(unbounded.choose(open.assembled(), { finalRequest: true }).reason).toBe('no request is expected after this one');
  });

  it('tells startKeepWarm what it wrote: the TTL and a live 1-hour entry, moved on by each ping', () => {
    const { session, assembled, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic', prior: PRIOR });
    session.appendUserText('Reconcile March.');
    ttl.choose(assembled());
    expect(ttl.keepWarmFacts).toEqual({ historyTtl: '5m' });
    at(30_000);
    toolStep('po-1');
    const request = assembled();
    expect(ttl.choose(request).ttl).toBe('1h');
    const tokens = request.zoneTokens.global + request.zoneTokens.session + request.zoneTokens.history;
    expect(ttl.keepWarmFacts).toEqual({ historyTtl: '1h', longEntry: { tokens, refreshedAt: 30_000 } });
    ttl.pinged(4 * MINUTE);
    expect(ttl.keepWarmFacts.longEntry?.refreshedAt).toBe(4 * MINUTE);
  });

  it('is startKeepWarm’s source of entries, learns each ping, and prices later writes against pings', async () => {
    const { session, assembled, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic', prior: PRIOR });
    session.appendUserText('Reconcile March.');
    ttl.choose(assembled());
    at(30_000);
    toolStep('po-1');
    const request = assembled();
    ttl.choose(request);
    const timers: Array<() => void> = [];
    const keptWarm = vi.spyOn(ttl, 'keptWarm');
    const warm = startKeepWarm(session, {
      send: async () => {},
      gapsMs: [70 * MINUTE],
      pricing: { write5m: 1.25, write1h: 2, read: 0.1 },
      ttl,
      timers: { set: (callback) => timers.push(callback), clear: () => {} },
    });
    // The last request was written for an hour (the policy says so): one ping just before it expires.
    expect(warm.plan.scheduleMs).toEqual([60 * MINUTE - 20_000]);
    at(60 * MINUTE);
    timers[0]?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warm.pingsSent).toBe(1);
    expect(ttl.keepWarmFacts.longEntry?.refreshedAt).toBe(60 * MINUTE);
    // From now on the policy prices 1-hour writes against pings.
    expect(keptWarm).toHaveBeenCalledOnce();
  });

  it('puts its choice and finalRequest into the provider’s own options through prepareRequest', () => {
    const { session, toolStep, at } = conversation();
    const ttl = new SessionTtl(session, { provider: 'anthropic', prior: PRIOR });
    session.appendUserText('Reconcile March.');
    const first = prepareRequest(session, anthropicAdapter, { turn: 1, step: 0, adapterOptions: ttl.adapterOptions() });
    at(30_000);
    toolStep('po-1');
    const step = prepareRequest(session, anthropicAdapter, { turn: 1, step: 1, adapterOptions: ttl.adapterOptions() });
    expect(JSON.stringify(first.body)).not.toContain('"ttl":"1h"');
    expect(JSON.stringify(step.body)).toContain('"ttl":"1h"');
    const options = ttl.adapterOptions({ finalRequest: true, plan: { padding: 'never' } })({
      request: step.request,
      zoneTokens: step.zoneTokens,
    });
    expect(options).toEqual({ ttl: { history: '5m' }, padding: 'never', finalRequest: true });
  });

  it('rejects a negative growth or session length', () => {
    const { session } = conversation();
    expect(() => new SessionTtl(session, { provider: 'anthropic', expectedGrowthTokens: -1 })).toThrow(ValidationError);
    expect(() => new SessionTtl(session, { provider: 'anthropic', expectedRequests: 1.5 })).toThrow(ValidationError);
  });
});

describe('prepareRequest finalRequest', () => {
  it('keeps the history breakpoint at the previous entry on the last request, and changes nothing otherwise', () => {
    const build = (finalRequest: boolean) => {
      const { session, toolStep, at } = conversation();
      session.appendUserText('Reconcile March.');
      const first = prepareRequest(session, anthropicAdapter, { turn: 1, step: 0 });
      at(30_000);
      toolStep('po-1');
      const previous = first.metadata.cacheState;
      return prepareRequest(session, anthropicAdapter, { turn: 1, step: 1, adapterOptions: { previous }, finalRequest });
    };
    const lastMarked = (body: { messages: Array<{ content: unknown }> }) =>
      body.messages.map((message) => JSON.stringify(message.content).includes('cache_control'));
    // Not final: the last message (the tool result) is marked; final: the previous entry (the turn's opening message).
    expect(lastMarked(build(false).body)).toEqual([false, false, true]);
    expect(lastMarked(build(true).body)).toEqual([true, false, false]);
  });
});
