import { describe, expect, it } from 'vitest';
import { createOpenAICompatibleAdapter, openAICompatibleAdapter } from '../openai-compatible/index.js';
import { createOpenAIResponsesAdapter, openAIResponsesAdapter } from '../openai-responses/index.js';
import { createOpenRouterAdapter, openRouterAdapter } from '../openrouter/index.js';
import { createOpenAIChatAdapter, openAIChatAdapter } from './index.js';
import { plainChat, toolLoop } from './test-support/fixtures.js';

describe('adapters', () => {
  it('have the provider ids of the ProviderId union', () => {
    expect([openAIChatAdapter.id, openAIResponsesAdapter.id, openRouterAdapter.id, openAICompatibleAdapter.id]).toEqual([
      'openai-chat',
      'openai-responses',
      'openrouter',
      'openai-compatible',
    ]);
  });

  it('apply factory defaults, with call-time options winning', () => {
    const chat = createOpenAIChatAdapter({ promptCacheKey: 'deployment-a', promptCacheRetention: '24h' });
    expect(chat.convertRequest(plainChat('gpt-4.1')).body).toMatchObject({
      prompt_cache_key: 'deployment-a',
      prompt_cache_retention: '24h',
    });
    expect(chat.convertRequest(plainChat('gpt-4.1'), { promptCacheKey: 'other' }).body.prompt_cache_key).toBe('other');

    const responses = createOpenAIResponsesAdapter({ store: true });
    expect(responses.convertRequest(plainChat('gpt-5.2')).body.store).toBe(true);
    expect(responses.convertRequest(plainChat('gpt-5.2')).body.include).toBeUndefined();

    const routes = [
      {
        models: ['acme'],
        family: 'acme',
        cacheRules: 'anthropic' as const,
        priceVendor: null,
        markers: 'cache_control' as const,
        maxMarkers: 4,
        tailInToolLoop: 'trailing-user' as const,
        reasoningDetails: false,
        source: 'mine',
        checked: '2026-11-21',
      },
    ];
    const openrouter = createOpenRouterAdapter({ routes });
    expect(openrouter.capabilities('acme/model').cachingMode).toBe('explicit');
    expect(JSON.stringify(openrouter.convertRequest(toolLoop('acme/model')).body)).toContain('cache_control');

    const local = createOpenAICompatibleAdapter({ server: 'llama.cpp', overrides: { slotCount: 2 } });
    const body = local.convertRequest(toolLoop('qwen3-8b'), { overrides: { cachePrompt: false } }).body;
    expect([body.cache_prompt, typeof body.id_slot]).toEqual([undefined, 'number']);
  });

  it('parse usage through the adapter interface', () => {
    expect(openAIChatAdapter.parseUsage({ usage: { prompt_tokens: 10, completion_tokens: 1 } }).uncachedInputTokens).toBe(10);
    expect(openAICompatibleAdapter.parseUsage({ timings: { cache_n: 8, prompt_n: 2, predicted_n: 1 } }).cacheReadTokens).toBe(8);
  });
});
