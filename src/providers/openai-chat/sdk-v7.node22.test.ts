import OpenAIV7 from 'openai-v7';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai-v7/resources/chat/completions';
import type { CompletionUsage } from 'openai-v7/resources/completions';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseReasoningItem,
  ResponseUsage,
} from 'openai-v7/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { convertToDeepSeek } from '../deepseek/index.js';
import { convertToOpenAICompatible } from '../openai-compatible/index.js';
import {
  convertToOpenAIResponses,
  messagesFromOpenAIResponses,
  parseOpenAIResponsesUsage,
  type responsesUsageSchema,
  thinkingFromReasoningItem,
} from '../openai-responses/index.js';
import { convertToOpenRouter } from '../openrouter/index.js';
import { convertToOpenAIChat } from './convert-request.js';
import { messagesFromOpenAIChat } from './messages-from-reply.js';
import { type chatUsageSchema, parseOpenAIChatUsage } from './parse-usage.js';
import { toolLoop, withReasoning } from './test-support/fixtures.js';
import { chatReply, parsedResponsesUsage, RESPONSES_USAGE, responsesReply, toolCallChoice } from './test-support/replies.js';
import { type ReplyServer, startReplyServer } from './test-support/reply-server.js';

// The official SDK's major 7 (devDependency alias `openai-v7`), beside the major 6 the rest of the
// suite uses. Cachet's own types import from `openai`, so in a project with openai 7 installed they
// are 7's types: the compile-time half below (`tsc --noEmit -p tsconfig.json`) fails if a wire body
// stops being assignable to 7's request types or 7's replies stop fitting Cachet's reply readers.
const chatBody: ChatCompletionCreateParamsNonStreaming = convertToOpenAIChat(toolLoop('gpt-5.6')).body;
const responsesBody: ResponseCreateParamsNonStreaming = convertToOpenAIResponses(withReasoning('gpt-5.6')).body;
const openRouterBody: ChatCompletionCreateParamsNonStreaming = convertToOpenRouter(toolLoop('anthropic/claude-sonnet-4.5')).body;
const compatibleBody: ChatCompletionCreateParamsNonStreaming = convertToOpenAICompatible(toolLoop('qwen3-8b')).body;
const deepSeekBody: ChatCompletionCreateParamsNonStreaming = convertToDeepSeek(toolLoop('deepseek-v4-flash')).body;
// @ts-expect-error a Responses body is not a Chat Completions body (so the checks above are not vacuous)
const notChat: ChatCompletionCreateParamsNonStreaming = responsesBody;

// Usage as openai 7 types it: Responses cache writes now carry a per-lifetime breakdown
// (`cache_write_tokens_details`, SDK 7.40/7.50); Chat Completions details gained text/image counts.
const RESPONSES_USAGE_V7: ResponseUsage = {
  ...RESPONSES_USAGE,
  input_tokens_details: {
    ...RESPONSES_USAGE.input_tokens_details,
    cache_write_tokens_details: { ttl_30m_tokens: 2_048, ttl_12h_tokens: 0 },
  },
};
const CHAT_USAGE: CompletionUsage = {
  prompt_tokens: 2048,
  completion_tokens: 5,
  total_tokens: 2053,
  prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 64, text_tokens: 2048, image_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, text_tokens: 5 },
};
const CHAT_REPLY = chatReply({
  model: 'gpt-5.6',
  choices: [toolCallChoice({ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' })],
  usage: CHAT_USAGE,
});
const RESPONSES_REPLY = responsesReply(
  [
    { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAAnext' },
    { type: 'function_call', id: 'fc_1', call_id: 'call_2', name: 'read_file', arguments: '{"path":"b.ts"}' },
  ],
  RESPONSES_USAGE_V7,
);

let server: ReplyServer;
beforeAll(async () => {
  server = await startReplyServer((path) => (path.endsWith('/responses') ? RESPONSES_REPLY : CHAT_REPLY));
});
afterAll(() => server.close());

function client(): OpenAIV7 {
  return new OpenAIV7({ baseURL: server.baseURL, apiKey: 'test-key-not-secret', maxRetries: 0 });
}

describe('openai SDK 7', () => {
  it('types: wire bodies fit its request types, its replies and usage fit Cachet readers', () => {
    expectTypeOf<ChatCompletion>().toExtend<Parameters<typeof messagesFromOpenAIChat>[0]>();
    expectTypeOf<Response>().toExtend<Parameters<typeof messagesFromOpenAIResponses>[0]>();
    expectTypeOf<ResponseReasoningItem>().toExtend<Parameters<typeof thinkingFromReasoningItem>[0]>();
    expectTypeOf<CompletionUsage>().toExtend<z.input<typeof chatUsageSchema>>();
    expectTypeOf<ResponseUsage>().toExtend<z.input<typeof responsesUsageSchema>>();
    expectTypeOf<ResponseUsage>().not.toExtend<z.input<typeof chatUsageSchema>>();
    expect(
      [chatBody, responsesBody, openRouterBody, compatibleBody, deepSeekBody, notChat].every(
        (body) => typeof body.model === 'string',
      ),
    ).toBe(true);
  });

  // Each API: the body the SDK sent, and what Cachet's readers make of SDK 7's reply to it.
  it.each([
    {
      api: 'chat.completions.create',
      kind: 'Chat',
      path: '/v1/chat/completions',
      body: chatBody,
      send: async () => {
        const completion = await client().chat.completions.create(chatBody);
        return { usage: parseOpenAIChatUsage(completion), messages: messagesFromOpenAIChat(completion), thinking: undefined };
      },
      usage: expect.objectContaining({ uncachedInputTokens: 64, cacheReadTokens: 1920, cacheWrite5mTokens: 64, outputTokens: 5 }),
      call: { id: 'call_1', path: 'a.ts' },
      thinking: undefined,
    },
    {
      api: 'responses.create',
      kind: 'Responses',
      path: '/v1/responses',
      body: responsesBody,
      send: async () => {
        const response = await client().responses.create(responsesBody);
        const reasoning = response.output.find((item): item is ResponseReasoningItem => item.type === 'reasoning');
        return {
          usage: parseOpenAIResponsesUsage(response),
          messages: messagesFromOpenAIResponses(response),
          thinking: reasoning && thinkingFromReasoningItem(reasoning),
        };
      },
      // With the write breakdown; reasoning carried back as a signed thinking block.
      usage: parsedResponsesUsage(RESPONSES_USAGE_V7),
      call: { id: 'call_2', path: 'b.ts' },
      thinking: { type: 'thinking', thinking: '', signature: 'openai-reasoning:v1:rs_2:gAAAAnext' },
    },
  ])('$api sends a $kind body unchanged; the reply parses to usage, messages and reasoning', async (api) => {
    const reply = await api.send();
    const last = server.received.at(-1)!;
    expect(last.path).toBe(api.path);
    expect(last.text).toBe(JSON.stringify(api.body));
    expect(reply.usage).toEqual(api.usage);
    expect(reply.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: api.call.id, name: 'read_file', input: { path: api.call.path } }] },
    ]);
    expect(reply.thinking).toEqual(api.thinking);
  });
});
