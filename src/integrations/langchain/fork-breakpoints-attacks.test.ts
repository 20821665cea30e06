import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import { cachetMiddleware } from './cachet-middleware.js';
import { recordedChatAnthropic } from './test-support/recorded-chat-anthropic.js';

const LONG = (label: string) => `${label}: ${'the build log says the cache key changed again. '.repeat(200)}`;

/** Every `cache_control` in a wire body (top level, tools, system, messages), as Anthropic counts breakpoints. */
function markers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((total: number, item) => total + markers(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let total = (value as { cache_control?: unknown }).cache_control ? 1 : 0;
  for (const [key, inner] of Object.entries(value)) if (key !== 'cache_control') total += markers(inner);
  return total;
}

/** One middleware (one conversation store) for every call, a recording Messages API, and Anthropic's cache judging each body. */
function agent(existingMarkers?: 'replace' | 'keep') {
  const { recorder, model } = recordedChatAnthropic();
  const middleware = cachetMiddleware(existingMarkers ? { existingMarkers } : {});
  const cache = createAnthropicCacheModel();
  let at = 0;
  return async (messages: BaseMessage[]) => {
    await createAgent({ model, tools: [], middleware: [middleware] }).invoke({ messages });
    const body = recorder.bodies.at(-1) as unknown;
    at += 30_000;
    return { body, markers: markers(body), read: cache.judge(body, { at }).cacheReadTokens };
  };
}

const plain = (label: string) => new HumanMessage(LONG(label));
/** A human message with eight blocks, each marked by the client (Anthropic accepts four breakpoints a request). */
const marked = (label: string) =>
  new HumanMessage({
    content: Array.from({ length: 8 }, (_, index) => ({
      type: 'text',
      text: `${label} part ${index}: ${'detail '.repeat(60)}`,
      cache_control: { type: 'ephemeral' },
    })),
  });

describe('LangChain: a fork of a known conversation reads its cache, with at most 4 breakpoints', () => {
  it.each([
    ['plain messages', plain, undefined],
    ['8 client markers per message, replaced', marked, 'replace'],
    ['8 client markers per message, kept', marked, 'keep'],
  ] as const)('%s', async (_, human, existingMarkers) => {
    const call = agent(existingMarkers);
    const system = new SystemMessage(LONG('system'));
    const opening = await call([system, human('first')]);
    const history = [system, human('first'), new AIMessage(LONG('first answer')), human('second')];
    const second = await call(history);
    expect(second.read).toBeGreaterThan(0);
    // A side call branching off after the AI reply: its history ends on an AI message, which LangChain cannot mark.
    const fork = await call([...history.slice(0, 3), human('Give this conversation a five-word title.')]);
    for (const made of [opening, second, fork]) expect(made.markers).toBeLessThanOrEqual(4);
    // It read nothing: its only breakpoint was planned on the AI message and dropped, so it paid the live prefix uncached.
    expect(fork.read).toBeGreaterThanOrEqual(second.read);
  });
});
