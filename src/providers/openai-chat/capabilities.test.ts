import { describe, expect, it } from 'vitest';
import { openAICompatibleCapabilities } from '../openai-compatible/capabilities.js';
import { openAIResponsesCapabilities } from '../openai-responses/capabilities.js';
import { openAIChatCapabilities } from './capabilities.js';
import { OPENAI_MODELS, resolveOpenAIModel } from './models.js';

describe('capabilities', () => {
  it('OpenAI: automatic caching from 1,024 tokens; explicit breakpoints from GPT-5.6', () => {
    expect(openAIChatCapabilities('gpt-4o-mini')).toMatchObject({
      provider: 'openai-chat',
      promptCaching: true,
      cachingMode: 'automatic',
      maxBreakpoints: 0,
      ttlOptions: ['in_memory'],
      minimumPrefixTokens: 1024,
    });
    expect(openAIResponsesCapabilities('gpt-5.6-mini')).toMatchObject({
      provider: 'openai-responses',
      cachingMode: 'explicit',
      maxBreakpoints: 4,
    });
    expect(openAIChatCapabilities('gpt-5.10').cachingMode).toBe('explicit');
    expect(openAIChatCapabilities('gpt-5.1').cachingMode).toBe('automatic');
    expect(openAIChatCapabilities('gpt-4.1').source).toMatch(/gpt-4\.1, checked 2026-11-23/);
  });

  it('user rows override the table', () => {
    const custom = { ...OPENAI_MODELS[0]!, models: ['ft:gpt-4o'], family: 'fine-tune', explicitBreakpoints: false };
    expect(resolveOpenAIModel('ft:gpt-4o:acme', [custom]).family).toBe('fine-tune');
    expect(openAIChatCapabilities('ft:gpt-4o:acme', [custom]).cachingMode).toBe('automatic');
    expect(resolveOpenAIModel('some-other-model').family).toBe('unknown');
  });

  it('local engines: automatic, no breakpoints, sources named', () => {
    const capabilities = openAICompatibleCapabilities('Qwen3-8B', { server: 'llama.cpp' });
    expect([capabilities.promptCaching, capabilities.cachingMode, capabilities.maxBreakpoints]).toEqual([true, 'automatic', 0]);
    expect(capabilities.source).toMatch(/family qwen3, server llama.cpp/);
  });
});
