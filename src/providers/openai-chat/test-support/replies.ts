import type { ChatCompletion } from 'openai/resources/chat/completions';

/** A chat completion as the local reply server answers it: `model`'s `choices` and `usage`, then any extra fields. */
export function chatReply(fields: { model: string; choices: unknown[]; usage: unknown } & Record<string, unknown>) {
  return { id: 'chatcmpl-local', object: 'chat.completion', created: 1_763_700_000, ...fields };
}

/** A completed GPT-5.6 Responses API reply as the local reply server answers it. */
export function responsesReply(output: unknown[], usage: unknown) {
  return {
    id: 'resp_local',
    object: 'response',
    created_at: 1_763_700_000,
    status: 'completed',
    model: 'gpt-5.6',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
}

/** A chat completion's first choice: the assistant calls one function tool (after `content`, if any). */
export function toolCallChoice(
  call: { id: string; name: string; arguments: string },
  content: string | null = null,
): ChatCompletion.Choice {
  return {
    index: 0,
    finish_reason: 'tool_calls',
    logprobs: null,
    message: {
      role: 'assistant',
      content,
      refusal: null,
      tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
    },
  };
}

/** A Responses API usage with a cache read, a cache write and reasoning (openai SDK 6.49.0 `ResponseUsage`). */
export const RESPONSES_USAGE = {
  input_tokens: 12_400,
  input_tokens_details: { cached_tokens: 10_240, cache_write_tokens: 2_048 },
  output_tokens: 900,
  output_tokens_details: { reasoning_tokens: 640 },
  total_tokens: 13_300,
};

/**
 * What parseOpenAIResponsesUsage reads from `raw`, RESPONSES_USAGE or the same figures with more detail:
 * 112 uncached = 12,400 input − 10,240 read − 2,048 written.
 */
export function parsedResponsesUsage(raw: unknown) {
  return {
    uncachedInputTokens: 112,
    cacheReadTokens: 10_240,
    cacheWrite5mTokens: 2_048,
    cacheWrite1hTokens: 0,
    outputTokens: 900,
    reasoningTokens: 640,
    raw,
  };
}
