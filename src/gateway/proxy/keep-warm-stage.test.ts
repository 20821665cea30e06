import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import { KeepWarmUnsupportedError } from '../../runtime/keep-warm.js';
import { fakeClock, MINUTE, T0 } from '../test-support/fake-clock.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn } from '../test-support/sessions.js';
import { createProxyApp } from './create-proxy-app.js';
import type { ProxyKeepWarmOptions } from './keep-warm-options.js';
import { pingBody } from './keep-warm-ping.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(keepWarm: Omit<ProxyKeepWarmOptions, 'timers'>, fetchWrapper?: (real: typeof fetch) => typeof fetch) {
  const clock = fakeClock();
  harness = await startHarness({
    now: clock.now,
    proxy: {
      keepWarm: { ...keepWarm, timers: clock.timers },
      ...(fetchWrapper ? { fetch: fetchWrapper(globalThis.fetch) } : {}),
    },
  });
  const h = harness;
  /** The scripted client: turn `count` of conversation `a`, sent at `at` (its system prompt written for an hour with `longSystem`). */
  const send = async (count: number, at: number, longSystem = false) => {
    await clock.advanceTo(at, () => h.proxy.settled());
    const body = anthropicTurn(count);
    if (longSystem) for (const block of body.system as TextBlockParam[]) block.cache_control = { type: 'ephemeral', ttl: '1h' };
    const response = await fetch(`${h.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const reply = (await response.json()) as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } };
    await h.flush();
    return reply.usage;
  };
  return { clock, send, harness: h };
}

/** Gaps of 6–8 minutes: each outlives a 5-minute entry, so a ping before expiry pays. */
const RHYTHM = [0, 6, 13, 20, 28].map((minutes) => T0 + minutes * MINUTE);

describe('cachet proxy --keep-warm against cachet emulate (fake clock)', () => {
  it('pings an idle conversation while it pays; the client comes back to a read; each ping is in the trace store', async () => {
    const { clock, send, harness: h } = await start({ budgetUsd: 1 });
    let count = 0;
    for (const at of RHYTHM) await send(++count, at);
    // Learned gaps of 6–8 minutes: the proxy has scheduled a ping before the entry expires.
    expect(clock.scheduled).toBeGreaterThan(0);
    const returnAt = RHYTHM.at(-1)! + 7 * MINUTE;
    const usage = await send(++count, returnAt);
    const stats = h.proxy.stats().keepWarm!;
    expect(stats.pingsSent).toBeGreaterThanOrEqual(1);
    expect(stats.pingsFailed).toBe(0);
    expect(stats.spentUsd).toBeGreaterThan(0);
    // Without the ping the 7-minute gap would have re-written the prefix; with it the client read it.
    expect(usage.cache_read_input_tokens).toBeGreaterThan(2_000);
    expect(stats.savedUsd).toBeGreaterThan(stats.spentUsd);
    const pings = (await h.store.events({ types: ['cache.keepalive'] })) as CachetEvent<'cache.keepalive'>[];
    expect(pings.length).toBe(stats.pingsSent);
    expect(pings[0]?.payload).toMatchObject({ provider: 'anthropic', sent: true, error: null });
    expect(pings[0]?.payload.costUsd).toBeGreaterThan(0);
    // Pings are not client requests: the conversation's recorded requests are the client's own.
    const [session] = await h.store.sessions();
    expect(session?.requests).toBe(count);
  });

  it('sends nothing past the budget, and says so', async () => {
    const { send, harness: h } = await start({ budgetUsd: 0.000_001 });
    let count = 0;
    for (const at of RHYTHM) await send(++count, at);
    await send(++count, RHYTHM.at(-1)! + 7 * MINUTE);
    const stats = h.proxy.stats().keepWarm!;
    expect(stats.pingsSent).toBe(0);
    expect(stats.stoppedByBudget).toBeGreaterThanOrEqual(1);
    const warnings = (await h.store.events({ types: ['warning.raised'] })) as CachetEvent<'warning.raised'>[];
    expect(warnings.some((event) => /keep-warm stopped: .* budget/.test(event.payload.message))).toBe(true);
  });

  it('stops when the credentials fail; the conversation goes on unaffected', async () => {
    const refusePings =
      (real: typeof fetch): typeof fetch =>
      async (input, init) => {
        if (typeof init?.body === 'string' && init.body.includes('"max_tokens":0')) {
          return new Response(JSON.stringify({ type: 'error', error: { type: 'authentication_error' } }), { status: 401 });
        }
        return real(input, init);
      };
    const { clock, send, harness: h } = await start({ budgetUsd: 1 }, refusePings);
    let count = 0;
    for (const at of RHYTHM) await send(++count, at);
    await clock.advanceTo(RHYTHM.at(-1)! + 5 * MINUTE, () => h.proxy.settled());
    await h.flush();
    const stats = h.proxy.stats().keepWarm!;
    expect(stats.pingsFailed).toBe(1);
    expect(clock.scheduled).toBe(0);
    const usage = await send(++count, RHYTHM.at(-1)! + 7 * MINUTE);
    expect(usage.cache_creation_input_tokens).toBeGreaterThan(0);
    const [failed] = (await h.store.events({ types: ['cache.keepalive'] })) as CachetEvent<'cache.keepalive'>[];
    expect(failed?.payload).toMatchObject({ sent: false, error: 'upstream answered 401' });
  });
});

/** Pauses of 75 minutes: twelve 5-minute pings reach 56 minutes, so only the 1-hour entry can bridge them. */
const LONG_RHYTHM = [0, 75, 150].map((minutes) => T0 + minutes * MINUTE);

describe('cachet proxy --keep-warm: a client whose system prompt is a 1-hour entry (fake clock)', () => {
  it('sends one ping just before the 1-hour entry expires; the return reads it; the saving outweighs the ping', async () => {
    const { clock, send, harness: h } = await start({ budgetUsd: 1 });
    let count = 0;
    for (const at of LONG_RHYTHM) await send(++count, at, true);
    expect(clock.scheduled).toBe(1);
    const usage = await send(++count, LONG_RHYTHM.at(-1)! + 75 * MINUTE, true);
    const stats = h.proxy.stats().keepWarm!;
    // One ping per pause once a 75-minute gap was learned (the second and third pauses).
    expect(stats).toMatchObject({ pingsSent: 2, pingsFailed: 0, stoppedByBudget: 0 });
    // The persona (the 1-hour entry) was read; only the messages after it were written again.
    expect(usage.cache_read_input_tokens).toBeGreaterThan(4_000);
    expect(usage.cache_creation_input_tokens).toBeLessThan(1_000);
    expect(stats.spentUsd).toBeGreaterThan(0);
    expect(stats.savedUsd).toBeGreaterThan(2 * stats.spentUsd);
    const pings = (await h.store.events({ types: ['cache.keepalive'] })) as CachetEvent<'cache.keepalive'>[];
    expect(pings.map((ping) => ping.payload.ping)).toEqual([1, 1]);
    expect(pings.at(-1)?.at).toBe(LONG_RHYTHM.at(-1)! + 60 * MINUTE - 20_000);
  });

  it('sends no long-entry ping past the budget', async () => {
    const { send, harness: h } = await start({ budgetUsd: 0.000_01 });
    let count = 0;
    for (const at of LONG_RHYTHM) await send(++count, at, true);
    const usage = await send(++count, LONG_RHYTHM.at(-1)! + 75 * MINUTE, true);
    expect(h.proxy.stats().keepWarm).toMatchObject({ pingsSent: 0, stoppedByBudget: 2, savedUsd: 0 });
    expect(usage.cache_read_input_tokens).toBe(0);
  });
});

describe('keep-warm: typed errors and the ping body', () => {
  it('refuses a negative budget and an upstream without pre-warming', () => {
    expect(() => createProxyApp({ upstream: 'anthropic', keepWarm: { budgetUsd: -1 } })).toThrow(ValidationError);
    expect(() => createProxyApp({ upstream: 'anthropic', keepWarm: { budgetUsd: -1 } })).toThrow(/keepWarm.budgetUsd/);
    expect(() => createProxyApp({ upstream: 'openai', keepWarm: {} })).toThrow(KeepWarmUnsupportedError);
  });

  it('builds the ping from the client body: same prefix, max_tokens 0, no stream, text after the last breakpoint', () => {
    const body = { ...anthropicTurn(2), stream: true } as unknown as Record<string, unknown>;
    const ping = pingBody('anthropic', body)!;
    expect(ping.max_tokens).toBe(0);
    expect(ping.stream).toBeUndefined();
    expect(JSON.stringify(ping.system)).toBe(JSON.stringify(body.system));
    const sent = JSON.stringify((body.messages as unknown[]).at(-1));
    const pinged = JSON.stringify((ping.messages as unknown[]).at(-1));
    expect(pinged.startsWith(sent.slice(0, -2))).toBe(true);
    expect(pingBody('anthropic', { ...body, thinking: { type: 'enabled', budget_tokens: 1024 } })).toBeNull();
    expect(pingBody('openai-chat', body)).toBeNull();
  });
});
