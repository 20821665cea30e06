import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { convertToOpenAICompatible, type OpenAICompatibleBody } from '../openai-compatible/index.js';
import { convertToOpenAIResponses, type OpenAIResponsesBody } from '../openai-responses/index.js';
import { convertToOpenRouter, type OpenRouterBody } from '../openrouter/index.js';
import { convertToOpenAIChat, type OpenAIChatBody } from './convert-request.js';
import { toolLoop } from './test-support/fixtures.js';

// Compile-time checks: `tsc --noEmit -p tsconfig.json` fails if a wire body stops being
// assignable to the official SDK request type, or if an unrelated type becomes assignable.
const chatBody: ChatCompletionCreateParamsNonStreaming = convertToOpenAIChat(toolLoop('gpt-5.6')).body;
const responsesBody: ResponseCreateParamsNonStreaming = convertToOpenAIResponses(toolLoop('gpt-5.6')).body;
const openRouterBody: ChatCompletionCreateParamsNonStreaming = convertToOpenRouter(toolLoop('anthropic/claude-sonnet-4.5')).body;
const compatibleBody: ChatCompletionCreateParamsNonStreaming = convertToOpenAICompatible(toolLoop('qwen3-8b')).body;
// @ts-expect-error a Responses body is not a Chat Completions body
const notChat: ChatCompletionCreateParamsNonStreaming = responsesBody;
// @ts-expect-error a Chat Completions body is not a Responses body
const notResponses: ResponseCreateParamsNonStreaming = chatBody;

describe('wire body types', () => {
  it('are the SDK request types or extensions assignable to them', () => {
    expectTypeOf<OpenAIChatBody>().toEqualTypeOf<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenAIResponsesBody>().toEqualTypeOf<ResponseCreateParamsNonStreaming>();
    expectTypeOf<OpenRouterBody>().toExtend<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenAICompatibleBody>().toExtend<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenRouterBody>().not.toExtend<ResponseCreateParamsNonStreaming>();
    // The runtime half: the same values, so the assignments above are not dead code.
    expect(
      [chatBody, responsesBody, openRouterBody, compatibleBody, notChat, notResponses].every(
        (body) => typeof body.model === 'string',
      ),
    ).toBe(true);
  });
});
