import { type AssistantMessage, type Context, complete, type Message, type Model } from '@mariozechner/pi-ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForkMatch } from '../shared/fork-recognition.js';
import { type ScriptedServer, startScriptedServer } from '../test-support/scripted-server.js';
import { toolLoopReply } from '../test-support/tool-loop-script.js';
import { cachetPiHooks, createKnownConversations } from './index.js';

const LONG = (label: string) => `${label}: ${'the build log says the cache key changed again. '.repeat(200)}`;
type WireBlock = { type: string; text?: string; cache_control?: unknown };
type Wire = { messages: Array<{ role: string; content: WireBlock[] }> };

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((_body, index) => toolLoopReply([{ type: 'text', text: 'ok' }], true, `msg_${index}`));
});
afterAll(() => server.close());

const model = (): Model<'anthropic-messages'> => ({
  id: 'claude-sonnet-4-5',
  name: 'Claude Sonnet 4.5 (local)',
  api: 'anthropic-messages',
  provider: 'anthropic',
  baseUrl: server.origin,
  reasoning: false,
  input: ['text'],
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  contextWindow: 200_000,
  maxTokens: 8_192,
});

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 0 });
const assistant = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: 'stop',
  timestamp: 0,
});

/** One real pi-ai call through the hooks; the body the local Messages API received. */
async function send(hooks: ReturnType<typeof cachetPiHooks>, messages: Message[]): Promise<Wire> {
  const context: Context = { systemPrompt: 'You are a careful coding agent.', messages };
  const reply = await complete(model(), context, { apiKey: 'no-key-needed', maxRetries: 0, onPayload: hooks.onPayload });
  if (reply.stopReason === 'error') throw new Error(reply.errorMessage ?? 'pi-ai error');
  return server.bodies.at(-1) as unknown as Wire;
}

const lastBlock = (body: Wire) => body.messages.at(-1)!.content.at(-1)!;
const marked = (body: Wire) =>
  body.messages.flatMap((message) => message.content).filter((block) => block.cache_control !== undefined).length;

const history: Message[] = [user(LONG('first question')), assistant(LONG('first answer')), user(LONG('second question'))];

describe('cachetPiHooks recognises forks of a known conversation (real pi-ai)', () => {
  it('plans a side call that branches off the last request as a fork: no marker at its end; the conversation goes on unaffected', async () => {
    const forks: ForkMatch[] = [];
    const hooks = cachetPiHooks({ conversationId: 'main', onFork: (fork) => forks.push(fork) });
    const first = await send(hooks, history);
    expect(lastBlock(first).cache_control).toBeDefined();
    // A title asked about the state before the second question: the conversation's prefix, a new ending.
    const fork = await send(hooks, [...history.slice(0, 2), user('Give this conversation a five-word title.')]);
    expect(lastBlock(fork).cache_control).toBeUndefined();
    expect(marked(fork)).toBeGreaterThan(0); // the shared prefix keeps the markers that read the cache
    expect(forks).toEqual([{ of: 'main', rule: 'branch', sharedBlocks: expect.any(Number) }]);
    // The conversation's own next request is a continuation, planned as usual.
    const next = await send(hooks, [...history, assistant('ok'), user(LONG('third'))]);
    expect(lastBlock(next).cache_control).toBeDefined();
    expect(forks).toHaveLength(1);
  });

  it('plans a subagent’s first call as a fork when its hooks share the parent’s known conversations', async () => {
    const known = createKnownConversations();
    const parent = cachetPiHooks({ conversationId: 'parent', knownConversations: known });
    await send(parent, history);
    const subagentMessages = [...history, assistant('ok'), user('Subtask: list the files.')];
    const subagent = await send(cachetPiHooks({ conversationId: 'sub-1', knownConversations: known }), subagentMessages);
    expect(lastBlock(subagent).cache_control).toBeUndefined();
    // Without the shared scope the same call is a first call of its own conversation: its end is marked.
    const alone = await send(cachetPiHooks({ conversationId: 'sub-2' }), subagentMessages);
    expect(lastBlock(alone).cache_control).toBeDefined();
    // An unrelated conversation in the shared scope is not a fork.
    const other = await send(cachetPiHooks({ conversationId: 'other', knownConversations: known }), [
      user(LONG('something else')),
    ]);
    expect(lastBlock(other).cache_control).toBeDefined();
  });

  it('contains an onFork callback that throws: the call goes out as planned', async () => {
    const errors: string[] = [];
    const hooks = cachetPiHooks({
      conversationId: 'main',
      onFork: () => {
        throw new Error('callback failed');
      },
      onError: (error, context) => errors.push(`${context.where}: ${error.message}`),
    });
    await send(hooks, history);
    const fork = await send(hooks, [...history.slice(0, 2), user('A recap, please.')]);
    expect(lastBlock(fork).cache_control).toBeUndefined();
    expect(errors).toEqual(['pi.onFork: callback failed']);
  });
});
