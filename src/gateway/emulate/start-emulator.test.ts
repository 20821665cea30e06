import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicTurn, chatTurn } from '../test-support/sessions.js';
import { type RunningEmulator, startEmulator } from './start-emulator.js';

const MINUTE = 60_000;
let emulator: RunningEmulator;
let clock = Date.UTC(2026, 10, 23, 10, 0, 0);
const tick = (ms: number) => {
  clock += ms;
  return clock;
};

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => clock,
    apiKey: 'sk-test-emulator',
    replies: [{ text: 'Reading it.', toolCalls: [{ name: 'read_file', input: { path: 'a.ts' } }] }],
  });
});
afterAll(async () => {
  await emulator.close();
});

describe('cachet emulate: Anthropic Messages API with the official SDK', () => {
  const client = () => new Anthropic({ apiKey: 'sk-test-emulator', baseURL: emulator.url, maxRetries: 0 });

  it('writes on the first request and reads it on the next, streamed or not, with the SDK parsing every reply', async () => {
    const first = await client().messages.create(anthropicTurn(1));
    expect(first.content[0]).toEqual({ type: 'text', text: 'Reading it.' });
    expect(first.content[1]).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'a.ts' } });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(2000);

    tick(MINUTE);
    const stream = client().messages.stream(anthropicTurn(2));
    const second = await stream.finalMessage();
    expect(second.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Echo: [a] request 1') });
    // The system breakpoint and the first turn's entry are read back; only the new turn is written.
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_creation_input_tokens).toBeLessThan(400);
  });

  it('expires a 5-minute entry on its clock, and the clock header overrides it', async () => {
    const body = anthropicTurn(1, { conversation: 'ttl' });
    await client().messages.create(body);
    const later = await client().messages.create(body, { headers: { 'x-cachet-clock': String(clock + 6 * MINUTE) } });
    // The system prompt was written by the first test more than five minutes before this clock: all written again.
    expect(later.usage.cache_read_input_tokens).toBe(0);
    const soon = await client().messages.create(body, { headers: { 'x-cachet-clock': String(clock + 6 * MINUTE + 1000) } });
    expect(soon.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('answers 400 in the API error shape for bodies the API rejects', async () => {
    const tooMany = anthropicTurn(3);
    for (const message of tooMany.messages)
      (message.content as unknown as Array<Record<string, unknown>>)[0]!.cache_control = { type: 'ephemeral' };
    const thinking = anthropicTurn(2);
    thinking.messages[1] = {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig', cache_control: { type: 'ephemeral' } } as never],
    };
    const ttlOrder = anthropicTurn(1);
    (ttlOrder.messages[0]!.content as unknown as Array<Record<string, unknown>>)[0]!.cache_control = {
      type: 'ephemeral',
      ttl: '1h',
    };
    const unpaired = anthropicTurn(2);
    unpaired.messages[1] = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] };
    for (const [body, pattern] of [
      [tooMany, /at most 4/],
      [thinking, /not allowed on thinking/],
      [ttlOrder, /1h breakpoint after the 5m breakpoint/],
      [unpaired, /tool_use. ids were found without .tool_result/],
      [{ ...anthropicTurn(1), max_tokens: undefined }, /max_tokens/],
    ] as const) {
      const error = await client()
        .messages.create(body as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringMatching(pattern) },
      });
    }
  });

  it('refuses a wrong key with 401 authentication_error', async () => {
    const wrong = new Anthropic({ apiKey: 'sk-wrong', baseURL: emulator.url, maxRetries: 0 });
    await expect(wrong.messages.create(anthropicTurn(1))).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('answers diagnostics from its own model: the server reason of a changed system prompt', async () => {
    const first = await client().messages.create({
      ...anthropicTurn(1, { conversation: 'diag' }),
      diagnostics: { previous_message_id: null },
    });
    expect(first.diagnostics ?? null).toBeNull();
    const changed = anthropicTurn(2, { conversation: 'diag' });
    (changed.system as Array<{ text: string }>)[0]!.text += ' Today is Monday.';
    const second = await client().messages.create({ ...changed, diagnostics: { previous_message_id: first.id } });
    expect(second.diagnostics?.cache_miss_reason).toEqual({
      type: 'system_changed',
      cache_missed_input_tokens: (first.usage.cache_creation_input_tokens ?? 0) + (first.usage.cache_read_input_tokens ?? 0),
    });
    const unknown = await client().messages.create({ ...changed, diagnostics: { previous_message_id: 'msg_nowhere' } });
    expect(unknown.diagnostics?.cache_miss_reason).toEqual({ type: 'previous_message_not_found' });
  });
});

describe('cachet emulate: OpenAI Chat Completions and Responses with the official SDK', () => {
  const client = () => new OpenAI({ apiKey: 'sk-test-emulator', baseURL: `${emulator.url}/v1`, maxRetries: 0 });

  it('reports cached_tokens in 128-token steps once the prefix repeats', async () => {
    const first = await client().chat.completions.create(chatTurn(1, 'chat'));
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    tick(MINUTE);
    const stream = await client().chat.completions.create({
      ...chatTurn(2, 'chat'),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toContain('Echo: [chat] request 1');
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThan(2000);
    expect(cached % 128).toBe(0);
  });

  it('answers the Responses API streamed and not, and refuses unanswered tool calls in the API shape', async () => {
    const input = [{ role: 'user' as const, content: 'Summarise the repository layout.' }];
    const plain = await client().responses.create({ model: 'gpt-4.1', instructions: 'Be brief.', input });
    expect(plain.output_text).toBe('Echo: Summarise the repository layout.');
    const stream = await client().responses.create({ model: 'gpt-4.1', instructions: 'Be brief.', input, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const unanswered = chatTurn(1, 'bad');
    unanswered.messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'x', arguments: '{}' } }],
    });
    unanswered.messages.push({ role: 'user', content: 'go on' });
    const error = await client()
      .chat.completions.create(unanswered)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: expect.stringContaining('call_1'),
      type: 'invalid_request_error',
    });
  });
});
