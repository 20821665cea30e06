import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolLoop, withReasoning } from '../openai-chat/test-support/fixtures.js';
import { type ReplyServer, startReplyServer } from '../openai-chat/test-support/reply-server.js';
import { deepSeekAdapter } from './index.js';

/** A DeepSeek chat completion as api.deepseek.com answers it (usage with hit and miss counts). */
const DEEPSEEK_REPLY = {
  id: 'chatcmpl-deepseek-local',
  object: 'chat.completion',
  created: 1_763_700_000,
  model: 'deepseek-chat',
  choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'done' } }],
  usage: {
    prompt_tokens: 2048,
    completion_tokens: 12,
    total_tokens: 2060,
    prompt_tokens_details: { cached_tokens: 1920 },
    prompt_cache_hit_tokens: 1920,
    prompt_cache_miss_tokens: 128,
  },
};

let server: ReplyServer;
beforeAll(async () => {
  server = await startReplyServer(() => DEEPSEEK_REPLY);
});
afterAll(() => server.close());

describe('DeepSeek through the official OpenAI SDK (baseURL as for api.deepseek.com)', () => {
  it.each([
    ['a tool loop', toolLoop('deepseek-chat')],
    ['thinking-mode tool calls', withReasoning('deepseek-reasoner')],
  ])('%s: the body reaches the server byte for byte, and the reply parses to hits and misses', async (_name, request) => {
    const { body } = deepSeekAdapter.convertRequest(request);
    const completion = await new OpenAI({
      baseURL: server.origin,
      apiKey: 'test-key-not-secret',
      maxRetries: 0,
    }).chat.completions.create(body);
    const last = server.received.at(-1)!;
    expect(last.path).toBe('/chat/completions');
    expect(JSON.parse(last.text)).toEqual(JSON.parse(JSON.stringify(body)));
    const usage = deepSeekAdapter.parseUsage(completion);
    expect([usage.cacheReadTokens, usage.uncachedInputTokens, usage.cacheWrite5mTokens, usage.outputTokens]).toEqual([
      1920, 128, 0, 12,
    ]);
  });
});
