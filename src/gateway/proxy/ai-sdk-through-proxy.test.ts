import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEST_KEY } from '../test-support/proxy-harness.js';
import { chatTurn, PERSONA } from '../test-support/sessions.js';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('the AI SDK and the OpenAI SDK through the proxy, the emulator upstream', () => {
  it('AI SDK + @ai-sdk/anthropic: generateText and streamText read the cache the first call wrote', async () => {
    harness = await startHarness();
    const anthropic = createAnthropic({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1` });
    const model = anthropic('claude-sonnet-5');
    const system = {
      role: 'system' as const,
      content: PERSONA,
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    };
    const first = await generateText({
      model,
      messages: [system, { role: 'user', content: 'List the packages.' }],
      maxRetries: 0,
    });
    expect(first.text).toBe('Echo: List the packages.');
    const streamed = streamText({
      model,
      messages: [
        system,
        { role: 'user', content: 'List the packages.' },
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'Now the tests.' },
      ],
      maxRetries: 0,
    });
    expect(await streamed.text).toBe('Echo: Now the tests.');
    const usage = await streamed.usage;
    expect(usage.inputTokenDetails.cacheReadTokens).toBeGreaterThan(2000);
    await harness.flush();
    const sessions = await harness.store.sessions();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.requests).toBe(2);
    expect(sessions[0]!.tokens.cacheRead).toBe(usage.inputTokenDetails.cacheReadTokens);
  });

  it('AI SDK + @ai-sdk/openai (chat and responses) and the official OpenAI SDK streaming with usage', async () => {
    harness = await startHarness();
    const openai = createOpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1` });
    const messages = [
      { role: 'system' as const, content: PERSONA },
      { role: 'user' as const, content: 'Which files changed?' },
    ];
    const chat = await generateText({ model: openai.chat('gpt-4.1'), messages, maxRetries: 0 });
    expect(chat.text).toBe('Echo: Which files changed?');
    const responses = streamText({ model: openai.responses('gpt-4.1'), messages, maxRetries: 0 });
    expect(await responses.text).toBe('Echo: Which files changed?');
    expect((await responses.usage).inputTokenDetails.cacheReadTokens).toBeGreaterThan(2000);

    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      ...chatTurn(1),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('Echo: [a] request 0');
    await harness.flush();
    expect(harness.captured.map((entry) => entry.provider)).toEqual(['openai-chat', 'openai-responses', 'openai-chat']);
    expect(harness.captured[1]!.usage).toMatchObject({ input_tokens_details: { cached_tokens: expect.any(Number) } });
  });
});
