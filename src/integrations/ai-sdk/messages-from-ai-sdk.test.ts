import { createAnthropic } from '@ai-sdk/anthropic';
import type { ModelMessage } from 'ai';
import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { fixtureSession } from '../../providers/anthropic/test-support/fixtures.js';
import { assemble } from '../../session/assemble.js';
import { messagesFromAiSdk } from './messages-from-ai-sdk.js';
import { type CaptureServer, startCaptureServer } from './test-support/capture-server.js';
import { toAiSdkCall } from './to-ai-sdk-call.js';
import { usageFromAiSdk } from './usage-from-ai-sdk.js';

const REPLY_CONTENT = [
  { type: 'thinking', thinking: 'The file list comes first.', signature: 'sig-EqQBCkgIARABGAIiQ' },
  { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
  { type: 'text', text: 'Reading it.' },
  { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'src/index.ts' } },
];

const TOOL_REPLY = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: REPLY_CONTENT,
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 12,
    output_tokens: 40,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 5000,
    cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
  },
};

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer(TOOL_REPLY);
});
afterAll(async () => {
  await server.close();
});

function thinkingSession() {
  return fixtureSession({ params: { thinking: { type: 'enabled', budgetTokens: 2048 } } });
}

describe('usageFromAiSdk', () => {
  it('maps the canned Messages usage, split by TTL, from the AI SDK result', async () => {
    const session = thinkingSession();
    session.appendUserText('What does src/index.ts export?');
    const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'test' });
    const result = await generateText({
      model: anthropic(session.model),
      ...toAiSdkCall(assemble(session), { provider: 'anthropic' }),
    });

    const usage = usageFromAiSdk(result, 'anthropic');
    expect(usage).toMatchObject({
      uncachedInputTokens: 12,
      cacheReadTokens: 5000,
      cacheWrite5mTokens: 1000,
      cacheWrite1hTokens: 2000,
      outputTokens: 40,
    });
    // Same figures as Cachet's own parser on the raw response.
    expect(usage).toEqual(anthropicAdapter.parseUsage(TOOL_REPLY));

    // The provider-neutral path reads the AI SDK's normalized fields; it cannot split writes by TTL.
    expect(usageFromAiSdk(result, 'openai')).toMatchObject({
      uncachedInputTokens: 12,
      cacheReadTokens: 5000,
      cacheWrite5mTokens: 3000,
      cacheWrite1hTokens: 0,
      outputTokens: 40,
    });
  });

  it('falls back to cachedInputTokens and the input total when details are missing', () => {
    const usage = usageFromAiSdk(
      {
        usage: {
          inputTokens: 2000,
          cachedInputTokens: 1536,
          outputTokens: 7,
          reasoningTokens: 3,
        } as never,
      },
      'openai',
    );
    expect(usage).toMatchObject({ uncachedInputTokens: 464, cacheReadTokens: 1536, outputTokens: 7, reasoningTokens: 3 });
    expect(() => usageFromAiSdk({} as never, 'openai')).toThrow(ValidationError);
  });
});

describe('messagesFromAiSdk', () => {
  it('round-trips response messages into Session.append and back to the same wire blocks', async () => {
    const session = thinkingSession();
    session.appendUserText('What does src/index.ts export?');
    const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'test' });
    const first = await generateText({
      model: anthropic(session.model),
      ...toAiSdkCall(assemble(session), { provider: 'anthropic' }),
    });

    const converted = messagesFromAiSdk(first.response.messages);
    expect(converted).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The file list comes first.', signature: 'sig-EqQBCkgIARABGAIiQ' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'src/index.ts' } },
        ],
      },
    ]);
    for (const message of converted) session.append(message);

    // The tool result as the AI SDK would record it, converted the same way.
    const toolMessage: ModelMessage = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_01',
          toolName: 'read_file',
          output: { type: 'text', value: "export * from './a.js';" },
        },
      ],
    };
    for (const message of messagesFromAiSdk([toolMessage])) session.append(message);
    const request = assemble(session);
    expect(request.tail.inToolLoop).toBe(true);

    await generateText({ model: anthropic(session.model), ...toAiSdkCall(request, { provider: 'anthropic' }) });
    const sent = server.bodies.at(-1) as { messages: Array<{ role: string; content: unknown[] }> };
    // The assistant turn goes back byte for byte as the model produced it (signatures untouched).
    expect(JSON.stringify(sent.messages[1]?.content)).toBe(JSON.stringify(REPLY_CONTENT));
    expect(JSON.stringify(sent.messages)).toBe(JSON.stringify(anthropicAdapter.convertRequest(request).body.messages));
    // History end: Cachet's breakpoint sits on the tool result, the tail follows it.
    expect(sent.messages[2]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: [{ type: 'text', text: "export * from './a.js';" }],
      cache_control: { type: 'ephemeral' },
    });
  });

  it('maps error outputs, JSON outputs and unsigned reasoning, and refuses system messages', () => {
    const converted = messagesFromAiSdk([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'unsigned' },
          { type: 'text', text: '' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'grep', output: { type: 'error-text', value: 'no match' } },
          { type: 'tool-result', toolCallId: 'b', toolName: 'grep', output: { type: 'json', value: { z: 1, a: [true] } } },
        ],
      },
    ]);
    expect(converted).toEqual([
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'unsigned' }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'a', content: [{ type: 'text', text: 'no match' }], isError: true },
          { type: 'tool_result', toolUseId: 'b', content: [{ type: 'text', text: '{"a":[true],"z":1}' }] },
        ],
      },
    ]);
    expect(() => messagesFromAiSdk([{ role: 'system', content: 'x' }])).toThrow(/messages\[0\]\.role/);
  });
});
