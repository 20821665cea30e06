import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertToOpenAICompatible, parseOpenAICompatibleUsage } from '../openai-compatible/index.js';
import { convertToOpenAIResponses, parseOpenAIResponsesUsage } from '../openai-responses/index.js';
import { convertToOpenRouter, parseOpenRouterUsage } from '../openrouter/index.js';
import { convertToOpenAIChat } from './convert-request.js';
import { parseOpenAIChatUsage } from './parse-usage.js';
import { toolLoop, withImages, withReasoning } from './test-support/fixtures.js';
import { chatReply, responsesReply } from './test-support/replies.js';
import { type ReplyServer, startReplyServer } from './test-support/reply-server.js';

let server: ReplyServer;

const CHAT_REPLY = chatReply({
  model: 'local',
  choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'done', refusal: null } }],
  usage: {
    prompt_tokens: 2048,
    completion_tokens: 5,
    total_tokens: 2053,
    prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 64 },
  },
  timings: { cache_n: 1920, prompt_n: 128, predicted_n: 5 },
  cache_discount: 0.001,
});
const RESPONSES_REPLY = responsesReply([], {
  input_tokens: 4096,
  input_tokens_details: { cached_tokens: 3968, cache_write_tokens: 0 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 3 },
  total_tokens: 4103,
});

beforeAll(async () => {
  server = await startReplyServer((path) => (path.endsWith('/responses') ? RESPONSES_REPLY : CHAT_REPLY));
});
afterAll(() => server.close());

function client(): OpenAI {
  return new OpenAI({ baseURL: server.baseURL, apiKey: 'test-key-not-secret', maxRetries: 0 });
}

/** The body arrived byte for byte as assembled (the SDK adds and removes nothing). */
function expectArrivedExactly(path: string, body: unknown): void {
  const last = server.received.at(-1)!;
  expect(last.path).toBe(path);
  expect(last.authorization).toBe('Bearer test-key-not-secret');
  expect(last.text).toBe(JSON.stringify(body));
  expect(JSON.parse(last.text)).toEqual(body);
}

describe('official openai SDK clients send assembled bodies unchanged', () => {
  it('chat.completions.create with an OpenAI Chat body (GPT-5.6 breakpoints, tool loop)', async () => {
    const { body } = convertToOpenAIChat(toolLoop('gpt-5.6'));
    const completion = await client().chat.completions.create(body);
    expectArrivedExactly('/v1/chat/completions', body);
    expect(parseOpenAIChatUsage(completion)).toMatchObject({
      cacheReadTokens: 1920,
      cacheWrite5mTokens: 64,
      uncachedInputTokens: 64,
    });
  });

  it('responses.create with a Responses body (reasoning item carried back)', async () => {
    const { body } = convertToOpenAIResponses(withReasoning('gpt-5.6'));
    const response = await client().responses.create(body);
    expectArrivedExactly('/v1/responses', body);
    expect(server.received.at(-1)!.text).toContain('"encrypted_content":"gAAAAencrypted"');
    expect(parseOpenAIResponsesUsage(response)).toMatchObject({
      cacheReadTokens: 3968,
      uncachedInputTokens: 128,
      reasoningTokens: 3,
    });
  });

  it('chat.completions.create with an OpenRouter body (cache_control and session_id pass through)', async () => {
    const { body } = convertToOpenRouter(withImages('anthropic/claude-sonnet-4.5'));
    const completion = await client().chat.completions.create(body);
    expectArrivedExactly('/v1/chat/completions', body);
    expect(server.received.at(-1)!.text).toContain('"cache_control":{"type":"ephemeral"}');
    expect(parseOpenRouterUsage(completion)).toMatchObject({
      cacheReadTokens: 1920,
      cacheWrite5mTokens: 64,
      cacheDiscount: 0.001,
    });
  });

  it('chat.completions.create with a local-engine body (cache_prompt, id_slot)', async () => {
    const { body } = convertToOpenAICompatible(toolLoop('qwen3-8b'), { server: 'llama.cpp', overrides: { slotCount: 2 } });
    const completion = await client().chat.completions.create(body);
    expectArrivedExactly('/v1/chat/completions', body);
    expect(server.received.at(-1)!.text).toContain('"cache_prompt":true');
    expect(parseOpenAICompatibleUsage(completion)).toMatchObject({ cacheReadTokens: 1920, uncachedInputTokens: 128 });
  });
});
