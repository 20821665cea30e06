import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSession } from '../../providers/anthropic/test-support/fixtures.js';
import { convertToOpenAIChat } from '../../providers/openai-chat/convert-request.js';
import { assemble } from '../../session/assemble.js';
import { type CaptureServer, startCaptureServer } from './test-support/capture-server.js';
import { toAiSdkCall } from './to-ai-sdk-call.js';
import { usageFromAiSdk } from './usage-from-ai-sdk.js';

const COMPLETION = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_763_700_000,
  model: 'gpt-5.1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 2000, completion_tokens: 7, total_tokens: 2007, prompt_tokens_details: { cached_tokens: 1536 } },
};

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer(COMPLETION);
});
afterAll(async () => {
  await server.close();
});

type ChatBody = {
  prompt_cache_key?: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }>;
  tools?: Array<{ function: { name: string; parameters: unknown } }>;
};

/** Role and text of each message, whatever the content form (string or text parts). */
function outline(body: ChatBody): string[] {
  return body.messages.map((message) => {
    const content = message.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part) => (part as { text?: string }).text).join('|')
          : '';
    return `${message.role === 'developer' ? 'system' : message.role}: ${text}${message.tool_calls ? ` +${message.tool_calls.length} calls` : ''}`;
  });
}

describe('toAiSdkCall for OpenAI through the AI SDK OpenAI chat provider', () => {
  it('sends prompt_cache_key and Cachet’s message order, tail as a trailing system message in a tool loop', async () => {
    const session = fixtureSession({ model: 'gpt-5.1' });
    session.appendUserText('Find the TODOs.');
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_1', name: 'grep', input: { pattern: 'TODO', glob: '*.ts' } }],
    });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'call_1', content: [{ type: 'text', text: 'a.ts:1' }] }],
    });
    const request = assemble(session);
    const cachet = convertToOpenAIChat(request).body as unknown as ChatBody;

    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test' });
    const call = toAiSdkCall(request, { provider: 'openai' });
    expect(call.allowSystemInMessages).toBe(true);
    expect(call.messages.filter((message) => message.role === 'system')).toHaveLength(1);
    const result = await generateText({ model: openai.chat(request.model), ...call });
    const sent = server.bodies.at(-1) as ChatBody;

    expect(server.paths.at(-1)).toBe('/v1/chat/completions');
    expect(sent.prompt_cache_key).toBe(cachet.prompt_cache_key);
    expect(sent.prompt_cache_key).toBeTruthy();
    // System segments are sent one message each by the AI SDK; the text and order match Cachet's.
    const expected = outline(cachet).flatMap((line) =>
      line.startsWith('system: ') && line.includes('|')
        ? line
            .slice(8)
            .split('|')
            .map((text) => `system: ${text}`)
        : [line],
    );
    expect(outline(sent)).toEqual(expected);
    expect(outline(sent).at(-1)).toMatch(/^system: \[current time\]/);
    expect(JSON.stringify(sent.tools?.map((tool) => tool.function.parameters))).toBe(
      JSON.stringify((cachet.tools as ChatBody['tools'])?.map((tool) => tool.function.parameters)),
    );

    expect(usageFromAiSdk(result, 'openai')).toMatchObject({ uncachedInputTokens: 464, cacheReadTokens: 1536, outputTokens: 7 });
  });
});
