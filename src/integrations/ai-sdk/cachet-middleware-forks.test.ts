import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { recordingFetch } from '../test-support/recording-fetch.js';
import { toolLoopReply } from '../test-support/tool-loop-script.js';
import { cachetMiddleware } from './cachet-middleware.js';

const LONG = (label: string) => `${label}: ${'the build log says the cache key changed again. '.repeat(200)}`;
type Wire = { messages: Array<{ role: string; content: Array<{ type: string; text?: string; cache_control?: unknown }> }> };

/** One middleware instance (one conversation store), a recording Messages API, and a call per message list. */
function agent() {
  const recorder = recordingFetch(() => toolLoopReply([{ type: 'text', text: 'ok' }], false, 'msg_1'));
  const anthropic = createAnthropic({ baseURL: 'http://cachet.invalid/v1', apiKey: 'no-key-needed', fetch: recorder.fetch });
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: cachetMiddleware({}) });
  return {
    call: async (messages: ModelMessage[], conversationId?: string) => {
      await generateText({
        model,
        system: 'You are a careful coding agent.',
        messages,
        ...(conversationId ? { providerOptions: { cachet: { conversationId } } } : {}),
      });
      return recorder.bodies.at(-1) as unknown as Wire;
    },
  };
}

const lastBlock = (body: Wire) => body.messages.at(-1)!.content.at(-1)!;
const marked = (body: Wire) =>
  body.messages.flatMap((message) => message.content).filter((block) => block.cache_control !== undefined).length;

const history: ModelMessage[] = [
  { role: 'user', content: LONG('first question') },
  { role: 'assistant', content: LONG('first answer') },
  { role: 'user', content: LONG('second question') },
];

describe('cachetMiddleware (AI SDK) recognises forks of a known conversation', () => {
  it('plans a side call that branches off the last request as a fork: no marker at its end; the conversation goes on unaffected', async () => {
    const { call } = agent();
    const first = await call(history);
    expect(lastBlock(first).cache_control).toBeDefined();
    // A title asked about the state before the second question: the prefix is the conversation's, the ending is new.
    const fork = await call([...history.slice(0, 2), { role: 'user', content: 'Give this conversation a five-word title.' }]);
    expect(lastBlock(fork).cache_control).toBeUndefined();
    expect(marked(fork)).toBeGreaterThan(0); // the shared prefix keeps the markers that read the cache
    // The conversation's own next request is a continuation, planned as usual.
    const next = await call([...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: LONG('third') }]);
    expect(lastBlock(next).cache_control).toBeDefined();
  });

  it('plans the first call of a new conversation that starts with a known conversation as a fork (a subagent)', async () => {
    const { call } = agent();
    await call(history, 'parent');
    const subagent = await call(
      [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Subtask: list the files.' }],
      'sub-1',
    );
    expect(lastBlock(subagent).cache_control).toBeUndefined();
    // An unrelated new conversation is not a fork.
    const other = await call([{ role: 'user', content: LONG('something else') }], 'other');
    expect(lastBlock(other).cache_control).toBeDefined();
  });
});
