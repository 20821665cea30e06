import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { costOf } from '../../cache/cost.js';
import type { CachetEvent } from '../../events/catalog.js';
import { createApp } from '../../server/create-app.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('cachet proxy --plan: what the plan saved against the client’s own markers', () => {
  it('records both modelled costs per request in proxy.forwarded and sums them per conversation in /analytics/plan_savings', async () => {
    harness = await startHarness({ proxy: { plan: true } });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
    // Two conversations: one placing no markers (the plan saves), one marking only its system prompt.
    const lastReplies: Anthropic.Message[] = [];
    for (let turn = 1; turn <= 5; turn++) {
      lastReplies[0] = await anthropic.messages.create(anthropicTurn(turn, { marked: false, conversation: 'bare' }));
      const systemOnly = anthropicTurn(turn, { marked: true, conversation: 'system-only' });
      for (const message of systemOnly.messages) {
        for (const block of message.content as Array<{ cache_control?: unknown }>) delete block.cache_control;
      }
      await anthropic.messages.create(systemOnly);
    }
    await harness.flush();

    const forwarded = (await harness.store.events({ types: ['proxy.forwarded'] })) as CachetEvent<'proxy.forwarded'>[];
    expect(forwarded).toHaveLength(10);
    const sessions = [...new Set(forwarded.map((event) => event.sessionId))];
    expect(sessions).toHaveLength(2);
    const bare = forwarded.filter((event) => event.sessionId === forwarded[0]!.sessionId);
    expect(bare.map((event) => event.payload.mode)).toEqual(['plan', 'plan', 'plan', 'plan', 'plan']);
    expect(bare.map((event) => event.payload.turn)).toEqual([0, 1, 2, 3, 4]);
    // The client's bodies read nothing in the model (no marker); the planned ones read from the second on.
    expect(bare.map((event) => event.payload.plan!.client.cacheReadTokens)).toEqual([0, 0, 0, 0, 0]);
    for (const event of bare.slice(1)) expect(event.payload.plan!.planned.cacheReadTokens).toBeGreaterThan(2000);
    expect(bare[4]!.payload.plannedBreakpoints).toEqual(['tools[0]', 'system[0]', 'messages[8].content[0]']);
    expect(bare[4]!.payload.responseId).toBe(lastReplies[0]!.id);
    // The planned body's modelled usage is what the emulator (the same model) reported for it.
    const usage = (await harness.store.requests(bare[4]!.sessionId)).at(-1)!;
    expect(bare[4]!.payload.plan!.planned.cacheReadTokens).toBe(usage.tokens.cacheRead);
    const model = 'claude-sonnet-5';
    const client = bare[4]!.payload.plan!.client;
    expect(client.costUsd).toBeCloseTo(
      costOf(
        {
          uncachedInputTokens: client.inputTokens - client.cacheReadTokens - client.cacheWriteTokens,
          cacheReadTokens: client.cacheReadTokens,
          cacheWrite5mTokens: client.cacheWriteTokens,
          cacheWrite1hTokens: 0,
          outputTokens: 0,
          reasoningTokens: 0,
          raw: null,
        },
        'anthropic',
        model,
      ).costUsd,
      12,
    );

    const app = createApp({ store: harness.store });
    const one = await (await app.request(`/analytics/plan_savings?session=${encodeURIComponent(bare[0]!.sessionId)}`)).json();
    const clientCost = bare.reduce((total, event) => total + event.payload.plan!.client.costUsd, 0);
    const plannedCost = bare.reduce((total, event) => total + event.payload.plan!.planned.costUsd, 0);
    expect(one).toMatchObject({ requests: 5, truncated: false });
    expect(one.clientCostUsd).toBeCloseTo(clientCost, 12);
    expect(one.plannedCostUsd).toBeCloseTo(plannedCost, 12);
    expect(one.savedUsd).toBeCloseTo(clientCost - plannedCost, 12);
    expect(one.savedUsd).toBeGreaterThan(0);
    expect(one.clientReadShare).toBe(0);
    expect(one.plannedReadShare).toBeGreaterThan(0.6);

    const all = await (await app.request('/analytics/plan_savings')).json();
    expect(all.requests).toBe(10);
    expect(all.sessions.map((session: { sessionId: string }) => session.sessionId).sort()).toEqual([...sessions].sort());
    const systemOnly = all.sessions.find((session: { sessionId: string }) => session.sessionId !== bare[0]!.sessionId);
    // The system marker alone already read the persona: the plan still saves the history on top.
    expect(systemOnly.clientReadShare).toBeGreaterThan(0.3);
    expect(systemOnly.plannedReadShare).toBeGreaterThan(systemOnly.clientReadShare);
    expect(all.savedUsd).toBeCloseTo(one.savedUsd + systemOnly.savedUsd, 12);
  });

  it('--no-plan-savings: planned exchanges are forwarded and recorded without the comparison', async () => {
    harness = await startHarness({ proxy: { plan: { savings: false } } });
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
    for (let turn = 1; turn <= 2; turn++) await anthropic.messages.create(anthropicTurn(turn, { marked: false }));
    await harness.flush();
    const forwarded = (await harness.store.events({ types: ['proxy.forwarded'] })) as CachetEvent<'proxy.forwarded'>[];
    expect(forwarded.map((event) => [event.payload.mode, event.payload.plan])).toEqual([
      ['plan', null],
      ['plan', null],
    ]);
    expect(forwarded[1]!.payload.plannedBreakpoints).toEqual(['tools[0]', 'system[0]', 'messages[2].content[0]']);
  });

  it('without --plan: proxy.forwarded events carry no comparison, and the analytics count nothing', async () => {
    harness = await startHarness();
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    for (let turn = 1; turn <= 2; turn++) await openai.chat.completions.create(chatTurn(turn));
    await harness.flush();
    const forwarded = (await harness.store.events({ types: ['proxy.forwarded'] })) as CachetEvent<'proxy.forwarded'>[];
    expect(forwarded.map((event) => [event.payload.mode, event.payload.plan, event.payload.provider])).toEqual([
      ['pass-through', null, 'openai-chat'],
      ['pass-through', null, 'openai-chat'],
    ]);
    // As request.assembled in the library, proxy.forwarded comes before the turn's usage.recorded.
    const ordered = await harness.store.events({ sessionId: forwarded[0]!.sessionId });
    expect(ordered.map((event) => event.type)).toEqual([
      'session.started',
      'proxy.forwarded',
      'usage.recorded',
      'proxy.forwarded',
      'usage.recorded',
    ]);
    const answer = await (await createApp({ store: harness.store }).request('/analytics/plan_savings')).json();
    expect(answer).toMatchObject({
      requests: 0,
      savedUsd: 0,
      savedShare: null,
      sessions: [expect.objectContaining({ requests: 0 })],
    });
  });
});
