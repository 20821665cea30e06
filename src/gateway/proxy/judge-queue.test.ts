import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';
import { createJudgeQueue } from './judge-queue.js';

describe('createJudgeQueue', () => {
  it('runs records later, in arrival order, and stops judging past its limit without dropping records', async () => {
    const queue = createJudgeQueue({ limit: 2 });
    const ran: Array<[number, boolean, boolean]> = [];
    for (let index = 0; index < 5; index++) queue.push((judge, first) => ran.push([index, judge, first]));
    expect(ran).toEqual([]);
    expect(queue.pending).toBe(5);
    await queue.idle();
    expect(ran).toEqual([
      [0, true, false],
      [1, true, false],
      [2, false, true],
      [3, false, false],
      [4, false, false],
    ]);
    expect(queue.dropped).toBe(3);
    // Drained: judging resumes, and a later burst is announced again.
    for (let index = 5; index < 9; index++) queue.push((judge, first) => ran.push([index, judge, first]));
    await queue.idle();
    expect(ran.slice(5)).toEqual([
      [5, true, false],
      [6, true, false],
      [7, false, true],
      [8, false, false],
    ]);
  });

  it('yields to the event loop between records', async () => {
    const queue = createJudgeQueue();
    const order: string[] = [];
    queue.push(() => {
      order.push('first');
      setImmediate(() => order.push('other client'));
    });
    queue.push(() => order.push('second'));
    await queue.idle();
    expect(order).toEqual(['first', 'other client', 'second']);
  });

  it('a throwing record reaches onError and the queue goes on', async () => {
    const errors: unknown[] = [];
    const queue = createJudgeQueue({ onError: (error) => errors.push(error) });
    const ran: number[] = [];
    queue.push(() => {
      throw new Error('boom');
    });
    queue.push(() => ran.push(2));
    await queue.idle();
    expect(errors).toHaveLength(1);
    expect(ran).toEqual([2]);
  });
});

describe('cachet proxy: judging off the request path', () => {
  let harness: Harness | null = null;
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it('a burst beyond the judge queue is answered and recorded in full, unjudged, with one warning', async () => {
    // The upstream's six replies are released together, so six records queue at once.
    const waiting: Array<() => void> = [];
    const together: typeof fetch = async (input, init) => {
      const reply = await fetch(input, init);
      const bytes = await reply.arrayBuffer();
      await new Promise<void>((release) => {
        waiting.push(release);
        if (waiting.length === 6) for (const next of waiting) next();
      });
      return new Response(bytes, { status: reply.status, headers: reply.headers });
    };
    harness = await startHarness({ proxy: { plan: true, judgeQueue: 1, fetch: together } });
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, index) => client.messages.create(anthropicTurn(1, { conversation: `c${index}` }))),
    );
    expect(replies.map((reply) => reply.type)).toEqual(Array(6).fill('message'));
    await harness.flush();
    const usage = await harness.store.events({ types: ['usage.recorded'] });
    expect(usage).toHaveLength(6);
    const forwarded = (await harness.store.events({ types: ['proxy.forwarded'] })) as CachetEvent<'proxy.forwarded'>[];
    expect(forwarded).toHaveLength(6);
    const judged = forwarded.filter((event) => event.payload.plan !== null).length;
    const dropped = harness.proxy.judgingDropped();
    expect(dropped).toBe(5);
    expect(judged).toBe(1);
    const warnings = (await harness.store.events({ types: ['warning.raised'] })) as CachetEvent<'warning.raised'>[];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.payload.source).toBe('proxy.judge');
  });

  it('a 60 KB whitespace-free Chat message is forwarded, recorded and judged without exact BPE over the run', async () => {
    harness = await startHarness({ proxy: { plan: true } });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const hostile = chatTurn(1, 'hostile');
    hostile.messages.push({ role: 'user', content: 'z'.repeat(60 * 1024) });
    await client.chat.completions.create(hostile);
    await client.chat.completions.create({ ...hostile, messages: [...hostile.messages, { role: 'user', content: 'next' }] });
    await harness.flush();
    const forwarded = (await harness.store.events({ types: ['proxy.forwarded'] })) as CachetEvent<'proxy.forwarded'>[];
    expect(forwarded).toHaveLength(2);
    expect(forwarded[1]!.payload.plan).not.toBeNull();
    expect(forwarded[1]!.payload.plan!.planned.inputTokens).toBeGreaterThan((60 * 1024) / 10);
  });
});
