import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { cachetMiddleware } from './cachet-middleware.js';
import { recordedChatAnthropic } from './test-support/recorded-chat-anthropic.js';

const LONG = (label: string) => `${label}: ${'the build log says the cache key changed again. '.repeat(200)}`;
type Wire = { messages: Array<{ role: string; content: string | Array<{ type: string; cache_control?: unknown }> }> };

/** One middleware instance (one conversation store) shared by every call, and a recording Messages API. */
function agent() {
  const { recorder, model } = recordedChatAnthropic();
  const middleware = cachetMiddleware({});
  return async (messages: BaseMessage[]) => {
    await createAgent({ model, tools: [], middleware: [middleware] }).invoke({ messages });
    return recorder.bodies.at(-1) as unknown as Wire;
  };
}

const lastMarker = (body: Wire) => {
  const content = body.messages.at(-1)!.content;
  return typeof content === 'string' ? undefined : content.at(-1)!.cache_control;
};

describe('cachetMiddleware (LangChain) recognises forks of a known conversation', () => {
  it('plans a side call that branches off the last request as a fork: no marker at its end; the conversation goes on', async () => {
    const call = agent();
    const history = [
      new HumanMessage(LONG('first question')),
      new AIMessage(LONG('first answer')),
      new HumanMessage(LONG('second')),
    ];
    expect(lastMarker(await call(history))).toBeDefined();
    const fork = await call([...history.slice(0, 2), new HumanMessage('Give this conversation a five-word title.')]);
    expect(lastMarker(fork)).toBeUndefined();
    const next = await call([...history, new AIMessage('ok'), new HumanMessage(LONG('third'))]);
    expect(lastMarker(next)).toBeDefined();
  });
});
