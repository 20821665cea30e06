import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { HookErrorContext } from '../shared/contained-hooks.js';
import { toolLoopReply } from '../test-support/tool-loop-script.js';
import { type CachetLangChainOptions, cachetMiddleware } from './cachet-middleware.js';
import { recordedChatAnthropic } from './test-support/recorded-chat-anthropic.js';

async function invoke(options: CachetLangChainOptions, usage: Record<string, unknown> = {}) {
  const { recorder, model } = recordedChatAnthropic(() => {
    const reply = toolLoopReply([{ type: 'text', text: 'ok' }], false, 'msg_1');
    const body = reply.kind === 'json' ? (reply.body as { usage: Record<string, unknown> }) : null;
    if (body) body.usage = { ...body.usage, ...usage };
    return reply;
  });
  const agent = createAgent({ model, tools: [], systemPrompt: 'You are terse.', middleware: [cachetMiddleware(options)] });
  const result = await agent.invoke({ messages: [new HumanMessage('hello')] });
  return { bodies: recorder.bodies, result };
}

function collecting() {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const errors: Array<{ error: Error; context: HookErrorContext }> = [];
  return { bus, events, errors, onError: (error: Error, context: HookErrorContext) => errors.push({ error, context }) };
}

describe('cachetMiddleware for LangChain contained: nothing it reads or calls breaks the agent', () => {
  it('publishes no negative usage; reports it instead', async () => {
    const seen = collecting();
    const { result } = await invoke({ bus: seen.bus, onError: seen.onError }, { input_tokens: -1, cache_read_input_tokens: -5 });
    expect(result.messages.at(-1)?.content).toBe('ok');
    expect(seen.events.filter((event) => event.type === 'usage.recorded')).toHaveLength(0);
    expect(seen.errors[0]?.context.where).toBe('langchain.wrapModelCall');
    expect(seen.errors[0]?.error.message).toMatch(/usage not recorded/);
  });

  it('publishes valid usage with finite costs', async () => {
    const seen = collecting();
    await invoke({ bus: seen.bus, onError: seen.onError }, { input_tokens: 12 });
    const recorded = seen.events.filter((event) => event.type === 'usage.recorded') as Array<CachetEvent<'usage.recorded'>>;
    expect(recorded).toHaveLength(1);
    expect(Number.isFinite(recorded[0]!.payload.costUsd)).toBe(true);
    expect(seen.errors).toHaveLength(0);
  });

  it('a tail that throws or returns a number: reported, the call goes out without a tail', async () => {
    for (const tail of [
      () => {
        throw new Error('no clock');
      },
      () => 42 as unknown as string,
    ]) {
      const seen = collecting();
      const { bodies } = await invoke({ onError: seen.onError, tail });
      const messages = bodies[0]!.messages as Array<{ content: unknown }>;
      expect(JSON.stringify(messages)).not.toContain('42');
      expect(messages).toHaveLength(1);
      expect(seen.errors.map((entry) => entry.context.where)).toEqual(['langchain.tail']);
    }
  });

  it('a conversationId function that throws: the call goes out as the agent built it', async () => {
    const seen = collecting();
    const { bodies } = await invoke({
      onError: seen.onError,
      conversationId: () => {
        throw new Error('no id');
      },
    });
    expect(bodies).toHaveLength(1);
    expect(JSON.stringify(bodies[0])).not.toContain('cache_control');
    expect(seen.errors.map((entry) => entry.context.where)).toEqual(['langchain.wrapModelCall']);
  });

  it('callbacks that throw never reach the agent', async () => {
    const { result } = await invoke({
      onRequest: () => {
        throw new Error('onRequest broke');
      },
      onUsage: () => {
        throw new Error('onUsage broke');
      },
      onError: () => {
        throw new Error('onError broke');
      },
    });
    expect(result.messages.at(-1)?.content).toBe('ok');
  });
});
