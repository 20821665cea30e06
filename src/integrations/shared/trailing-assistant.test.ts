import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { validateAnthropicBody } from '../../gateway/emulate/validate-anthropic-body.js';
import { type CachetCallInfo, cachetMiddleware } from '../ai-sdk/cachet-middleware.js';
import { applyLangChainMarkers } from '../langchain/langchain-prompt-view.js';
import { cachetPiHooks } from '../pi/cachet-pi-hooks.js';
import type { MiddlewareCallParams } from './prompt-view.js';

const persona = 'You are a careful assistant. '.repeat(300);
const model = { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' };

describe('a request that ends with an assistant prefill keeps it', () => {
  it('AI SDK: the request tail is not sent after the prefill, with a tail-not-placed warning; turn texts stay in the user message', async () => {
    const infos: CachetCallInfo[] = [];
    const middleware = cachetMiddleware({
      tail: () => [
        { text: 'Current time: 10:00', scope: 'request' },
        { text: 'Recalled: likes tea', scope: 'turn' },
      ],
      onRequest: (info) => infos.push(info),
    });
    const params: MiddlewareCallParams = {
      prompt: [
        { role: 'system', content: persona },
        { role: 'user', content: [{ type: 'text', text: 'Write a haiku.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Autumn' }] },
      ],
    };
    const out = await middleware.transformParams({ type: 'generate', params, model });
    expect(out.prompt.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Autumn' }] });
    expect(out.prompt).toHaveLength(3);
    expect(JSON.stringify(out.prompt[1])).toContain('Recalled: likes tea');
    expect(JSON.stringify(out.prompt)).not.toContain('Current time');
    expect(infos[0]!.warnings.map((warning) => warning.code)).toContain('tail-not-placed');
  });

  it('pi: the payload still ends with the prefill, valid, and the dropped tail is reported', () => {
    const errors: Error[] = [];
    const hooks = cachetPiHooks({
      conversationId: 'prefill',
      tail: () => [{ text: 'Current time: 10:00', scope: 'request' }],
      onError: (error) => errors.push(error),
    });
    const payload = {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: persona }],
      messages: [
        { role: 'user', content: 'Write a haiku.' },
        { role: 'assistant', content: [{ type: 'text', text: 'Autumn' }] },
      ],
    };
    const body = hooks.onPayload(payload, { id: 'claude-sonnet-4-5', api: 'anthropic-messages', provider: 'anthropic' }) as {
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.messages).toHaveLength(2);
    expect(body.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Autumn' }] });
    expect(validateAnthropicBody(body)).toBeNull();
    expect(errors.map((error) => error.message).join()).toMatch(/request tail was not sent/);
  });

  it('LangChain: no tail after a trailing AI message', () => {
    const applied = applyLangChainMarkers(
      { messages: [new HumanMessage('Write a haiku.'), new AIMessage('Autumn')], tools: [] },
      new Map(),
      ['Current time: 10:00'],
    );
    expect(applied.tailPlaced).toBe(false);
    expect(applied.messages).toHaveLength(2);
    expect(AIMessage.isInstance(applied.messages.at(-1))).toBe(true);
  });
});
