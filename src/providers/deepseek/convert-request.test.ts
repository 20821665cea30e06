import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { plainChat, toolLoop, withImages, withReasoning } from '../openai-chat/test-support/fixtures.js';
import { providerEntry } from '../registry.js';
import { convertToDeepSeek } from './convert-request.js';
import { deepSeekAdapter } from './index.js';

describe('convertToDeepSeek', () => {
  it('plain chat: system as text parts, the tail after the user text in parts of its own, no markers', () => {
    const { body, metadata } = convertToDeepSeek(plainChat('deepseek-chat'));
    const sdkTyped: ChatCompletionCreateParamsNonStreaming = body;
    expect(sdkTyped.model).toBe('deepseek-chat');
    expect(body.messages[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'You are a careful coding agent.' },
        { type: 'text', text: 'Prefer small, reviewable changes.' },
        { type: 'text', text: 'Project: demo. Session session-1.' },
      ],
    });
    const last = body.messages.at(-1)!;
    expect(last.role).toBe('user');
    const texts = (last.content as Array<{ text: string }>).map((part) => part.text);
    // The skill goes before the user's text; time and recall after it, each its own part.
    expect(texts[0]).toBe('Skill matched: testing.');
    expect(texts[1]).toBe('And the tests?');
    expect(texts.slice(2).join('\n')).toMatch(/Recall: note/);
    expect(JSON.stringify(body)).not.toMatch(/cache_control|prompt_cache/);
    expect(metadata.breakpoints).toEqual([]);
    expect(body.max_tokens).toBe(1024);
  });

  it('tool loop: tool-call turns carry null content and their reasoning; the tail follows the last tool result', () => {
    const { body } = convertToDeepSeek(withReasoning('deepseek-reasoner'));
    const calls = body.messages.filter((message) => message.role === 'assistant' && message.tool_calls);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call).toHaveProperty('reasoning_content');
    const loop = convertToDeepSeek(toolLoop('deepseek-chat')).body;
    const last = loop.messages.at(-1)!;
    expect(last.role).toBe('tool');
    expect(JSON.stringify(last.content)).toMatch(/Recall: note/);
    expect(loop.messages.some((message) => message.role === 'system' && message !== loop.messages[0])).toBe(false);
  });

  it('snapshot: a tool loop as DeepSeek receives it', async () => {
    await expect(JSON.stringify(convertToDeepSeek(toolLoop('deepseek-chat')).body, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.snapshot-a-tool-loop-as-deepseek-receives-it.json',
    );
  });

  it('replaces images with a text placeholder and says so (DeepSeek chat models take text only)', () => {
    const { body, metadata } = convertToDeepSeek(withImages('deepseek-chat'));
    expect(JSON.stringify(body.messages)).not.toMatch(/image_url/);
    expect(metadata.warnings.map((warning) => warning.code)).toContain('media-as-text');
  });
});

describe('DeepSeek in the registry', () => {
  it('routes to its own whole-unit rules and prices, and its adapter parses DeepSeek usage', () => {
    const entry = providerEntry('deepseek');
    expect(entry.route('deepseek-chat')).toEqual({ rules: 'deepseek', upstreamModel: 'deepseek-chat', priceVendor: 'deepseek' });
    expect(entry.counterpartModel('claude-sonnet-4-5')).toBe('deepseek-chat');
    expect(entry.adapter).toBe(deepSeekAdapter);
    expect(deepSeekAdapter.capabilities('deepseek-chat')).toMatchObject({ cachingMode: 'automatic', maxBreakpoints: 0 });
    const usage = deepSeekAdapter.parseUsage({ usage: { prompt_tokens: 10, prompt_cache_hit_tokens: 6, completion_tokens: 2 } });
    expect([usage.cacheReadTokens, usage.uncachedInputTokens]).toEqual([6, 4]);
  });
});
