import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import { fakeClock, MINUTE, T0 } from '../test-support/fake-clock.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn } from '../test-support/sessions.js';
import { createProxyApp } from './create-proxy-app.js';
import type { ProxyKeepWarmOptions } from './keep-warm-options.js';

/**
 * Attacks on `cachet proxy --keep-warm` against `cachet emulate`, on one fake clock: a reply that
 * takes longer than the entry lives (the idle period is planned when the exchange is recorded,
 * long after the request reached the upstream), pings whose upstream fails, budgets met exactly.
 * Reference: the emulator's own verdict on each ping (a ping that reads keeps the entry; one that
 * writes re-bills the prefix the return would have re-written anyway).
 */

const isPing = (init: RequestInit | undefined) => typeof init?.body === 'string' && init.body.includes('"max_tokens":0');

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(keepWarm: Omit<ProxyKeepWarmOptions, 'timers'>) {
  const clock = fakeClock();
  /** How long the next client request's reply takes (fake ms): the upstream answers, then time jumps. */
  let slowBy = 0;
  const pingReplies: Array<{ cache_read_input_tokens: number; cache_creation_input_tokens: number }> = [];
  const fetchUpstream: typeof fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (isPing(init)) {
      pingReplies.push((await response.clone().json()).usage);
    } else if (slowBy > 0) {
      clock.jump(slowBy);
      slowBy = 0;
    }
    return response;
  };
  harness = await startHarness({
    now: clock.now,
    proxy: { keepWarm: { ...keepWarm, timers: clock.timers }, fetch: fetchUpstream },
  });
  const h = harness;
  const send = async (count: number, at: number, replyTakesMs = 0, bodyOf: (count: number) => unknown = anthropicTurn) => {
    await clock.advanceTo(at, () => h.proxy.settled());
    slowBy = replyTakesMs;
    const response = await fetch(`${h.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(bodyOf(count)),
    });
    const reply = (await response.json()) as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } };
    await h.flush();
    return reply.usage;
  };
  return { clock, send, harness: h, pingReplies };
}

/** Gaps of 6–8 minutes: each outlives a 5-minute entry, so a ping before expiry pays. */
const RHYTHM = [0, 6, 13, 20, 28].map((minutes) => T0 + minutes * MINUTE);

describe('cachet proxy --keep-warm: a reply that outlasts the entry', () => {
  it('sends no ping into an entry that expired while the reply was streaming (it would only re-write it)', async () => {
    const { clock, send, harness: h, pingReplies } = await start({ budgetUsd: 1 });
    let count = 0;
    for (const at of RHYTHM) await send(++count, at);
    // The same rhythm, but this reply takes 6 minutes: when the proxy records it, the entry the request read is gone.
    const slowAt = RHYTHM.at(-1)! + 7 * MINUTE;
    await send(++count, slowAt, 6 * MINUTE);
    await clock.advanceTo(slowAt + 7 * MINUTE, () => h.proxy.settled());
    await h.flush();
    // Every ping the proxy sent read the prefix it was sent to keep; none re-wrote it.
    expect(pingReplies.length).toBeGreaterThan(0);
    for (const usage of pingReplies) expect(usage.cache_creation_input_tokens).toBeLessThan(usage.cache_read_input_tokens);
    const pings = (await h.store.events({ types: ['cache.keepalive'] })) as CachetEvent<'cache.keepalive'>[];
    expect(pings.every((ping) => ping.at < slowAt + 5 * MINUTE || ping.payload.sent === false)).toBe(true);
  });
});

/**
 * A client that marks only its system prompt, with a long history after it: the entry is the
 * system prompt, and every request (every ping too) pays the history uncached.
 */
function systemMarkedTurn(count: number) {
  const body = anthropicTurn(count, { marked: false });
  (body.system as Array<{ cache_control?: { type: 'ephemeral' } }>)[0]!.cache_control = { type: 'ephemeral' };
  const first = body.messages[0]!.content as Array<{ type: 'text'; text: string }>;
  first[0]!.text += ` Here is the file:\n${'export const line = compute(value, other);\n'.repeat(3_000)}`;
  return body;
}

describe('cachet proxy --keep-warm: what a ping really costs', () => {
  it('counts the uncached history a ping re-sends: no ping that costs more than it saves, the budget never passed', async () => {
    const perConversationUsd = 0.01;
    const { send, harness: h, pingReplies } = await start({ budgetUsd: 1, perConversationUsd });
    let count = 0;
    for (const at of RHYTHM) await send(++count, at, 0, systemMarkedTurn);
    await send(++count, RHYTHM.at(-1)! + 7 * MINUTE, 0, systemMarkedTurn);
    const stats = h.proxy.stats().keepWarm!;
    const pings = (await h.store.events({ types: ['cache.keepalive'] })) as CachetEvent<'cache.keepalive'>[];
    // Each ping the emulator billed re-sent the history uncached (far more than the entry it read).
    for (const usage of pingReplies) expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
    const spent = new Map<string, number>();
    for (const ping of pings) spent.set(ping.sessionId, (spent.get(ping.sessionId) ?? 0) + (ping.payload.costUsd ?? 0));
    for (const total of spent.values()) expect(total).toBeLessThanOrEqual(perConversationUsd);
    expect(stats.spentUsd).toBeLessThanOrEqual(perConversationUsd);
    // Priced right, no ping pays here: each would pay ~27k history tokens to keep a ~3k-token entry.
    expect(stats.pingsSent).toBe(0);
  });
});

describe('cachet proxy --keep-warm: options refused before anything starts', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('maxPingsPerIdle %s is a typed error naming it', (maxPingsPerIdle) => {
    expect(() => createProxyApp({ upstream: 'anthropic', keepWarm: { maxPingsPerIdle } })).toThrow(ValidationError);
    expect(() => createProxyApp({ upstream: 'anthropic', keepWarm: { maxPingsPerIdle } })).toThrow(/keepWarm.maxPingsPerIdle/);
  });

  it.each([-0.01, Number.NaN])('perConversationUsd %s is a typed error naming it', (perConversationUsd) => {
    expect(() => createProxyApp({ upstream: 'anthropic', keepWarm: { perConversationUsd } })).toThrow(
      /keepWarm.perConversationUsd/,
    );
  });
});

describe('cachet proxy --keep-warm: the client comes back while a ping is due', () => {
  it('sends no ping once the client has sent its next request (it reads the entry itself)', async () => {
    const clock = fakeClock();
    const window = { start: 0, end: 0 };
    const pingsAt: number[] = [];
    let slow = false;
    const fetchUpstream: typeof fetch = async (input, init) => {
      if (isPing(init)) pingsAt.push(clock.now());
      else if (slow) {
        // The client's request is in flight for a minute; timers due meanwhile fire.
        await clock.advanceTo(clock.now() + MINUTE, async () => {
          await new Promise((resolve) => setImmediate(resolve));
        });
      }
      return globalThis.fetch(input, init);
    };
    harness = await startHarness({
      now: clock.now,
      proxy: { keepWarm: { budgetUsd: 1, timers: clock.timers }, fetch: fetchUpstream },
    });
    const h = harness;
    const send = async (count: number, at: number) => {
      await clock.advanceTo(at, () => h.proxy.settled());
      window.start = clock.now();
      const response = await fetch(`${h.proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(anthropicTurn(count)),
      });
      await response.json();
      window.end = clock.now();
      await h.flush();
    };
    let count = 0;
    for (const at of RHYTHM) await send(++count, at);
    // Back 4.5 minutes after the last request, just before the first ping (4:40) was due; the reply takes a minute.
    slow = true;
    await send(++count, RHYTHM.at(-1)! + 4.5 * MINUTE);
    expect(pingsAt.filter((at) => at >= window.start && at <= window.end)).toEqual([]);
  });
});
