import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { parseOpenAICompatibleUsage } from './parse-usage.js';

// llama.cpp server /v1/chat/completions (tools/server/README.md): usage plus `timings`.
const LLAMA_CPP_CHAT = {
  id: 'chatcmpl-abc',
  object: 'chat.completion',
  model: 'qwen3-8b',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
  usage: { completion_tokens: 12, prompt_tokens: 1024, total_tokens: 1036 },
  timings: { cache_n: 900, prompt_n: 124, prompt_ms: 80.1, predicted_n: 12, predicted_ms: 240.5 },
};
// llama.cpp native /completion.
const LLAMA_CPP_COMPLETION = { content: 'ok', tokens_evaluated: 1024, tokens_cached: 900, tokens_predicted: 12, stop: true };
// vLLM with --enable-prompt-tokens-details (SGLang with --enable-cache-report reports the same field).
const VLLM = {
  id: 'chatcmpl-vllm',
  object: 'chat.completion',
  usage: { prompt_tokens: 2048, completion_tokens: 50, total_tokens: 2098, prompt_tokens_details: { cached_tokens: 1536 } },
};
// Ollama native /api/chat (0.33+ reports prompt_eval_cached_count).
const OLLAMA_NATIVE = {
  model: 'qwen3:8b',
  done: true,
  message: { role: 'assistant', content: 'ok' },
  prompt_eval_count: 38,
  prompt_eval_cached_count: 37,
  eval_count: 12,
};

describe('parseOpenAICompatibleUsage', () => {
  it('llama.cpp chat: timings.cache_n are reads, timings.prompt_n the evaluated rest', () => {
    expect(parseOpenAICompatibleUsage(LLAMA_CPP_CHAT)).toEqual({
      uncachedInputTokens: 124,
      cacheReadTokens: 900,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 12,
      reasoningTokens: 0,
      raw: LLAMA_CPP_CHAT,
    });
  });

  it('llama.cpp /completion: tokens_cached of tokens_evaluated', () => {
    expect(parseOpenAICompatibleUsage(LLAMA_CPP_COMPLETION)).toMatchObject({
      uncachedInputTokens: 124,
      cacheReadTokens: 900,
      outputTokens: 12,
    });
  });

  it('vLLM and SGLang: prompt_tokens_details.cached_tokens', () => {
    expect(parseOpenAICompatibleUsage(VLLM)).toMatchObject({
      uncachedInputTokens: 512,
      cacheReadTokens: 1536,
      cacheWrite5mTokens: 0,
      outputTokens: 50,
    });
  });

  it('vLLM without prompt token details reports no reads', () => {
    expect(parseOpenAICompatibleUsage({ usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 } })).toMatchObject({
      uncachedInputTokens: 100,
      cacheReadTokens: 0,
    });
  });

  it('Ollama native: prompt_eval_cached_count of prompt_eval_count', () => {
    expect(parseOpenAICompatibleUsage(OLLAMA_NATIVE)).toMatchObject({
      uncachedInputTokens: 1,
      cacheReadTokens: 37,
      outputTokens: 12,
    });
    const older = { prompt_eval_count: 38, eval_count: 4 };
    expect(parseOpenAICompatibleUsage(older)).toMatchObject({ uncachedInputTokens: 38, cacheReadTokens: 0, outputTokens: 4 });
  });

  it('refuses a response with no usage of any known shape', () => {
    expect(() => parseOpenAICompatibleUsage({ choices: [] })).toThrowError(ValidationError);
  });
});
