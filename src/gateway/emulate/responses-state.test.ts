import OpenAI from 'openai';
import type { ResponseInputItem, ResponseUsage } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { words } from '../../cache/test-support/fixtures.js';
import { PERSONA } from '../test-support/sessions.js';
import { type RunningEmulator, startEmulator } from './start-emulator.js';

const KEY = 'sk-test-emulator';
const MINUTE = 60_000;
let running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((emulator) => emulator.close()));
  running = [];
});

async function pair(clock: () => number) {
  const stateful = await startEmulator({ now: clock, apiKey: KEY });
  const stateless = await startEmulator({ now: clock, apiKey: KEY });
  running.push(stateful, stateless);
  const client = (emulator: RunningEmulator) => new OpenAI({ apiKey: KEY, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
  return { stateful: client(stateful), stateless: client(stateless) };
}

const ask = (turn: number): ResponseInputItem => ({ role: 'user', content: `request ${turn}: ${words(60, `q${turn}`)}` });

describe('cachet emulate: Responses API state (previous_response_id, store)', () => {
  it('continues a stored response: the usage equals that of a client sending the whole input, streamed or not', async () => {
    let now = Date.UTC(2026, 10, 23, 10, 0, 0);
    const { stateful, stateless } = await pair(() => now);
    const base = { model: 'gpt-4.1', instructions: PERSONA };
    let history: ResponseInputItem[] = [ask(0)];
    const first = await stateful.responses.create({ ...base, input: [ask(0)] });
    const firstFull = await stateless.responses.create({ ...base, input: history });
    expect(first.usage).toEqual(firstFull.usage);
    history = [...history, ...(firstFull.output as ResponseInputItem[]), ask(1)];

    now += MINUTE;
    const second = await stateful.responses.create({ ...base, previous_response_id: first.id, input: [ask(1)] });
    const secondFull = await stateless.responses.create({ ...base, input: history });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe(secondFull.output_text);
    expect(second.usage).toEqual(secondFull.usage);
    expect(second.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(2000);
    history = [...history, ...(secondFull.output as ResponseInputItem[]), ask(2)];

    // A chain of continuations, streamed.
    now += MINUTE;
    const stream = await stateful.responses.create({ ...base, previous_response_id: second.id, input: [ask(2)], stream: true });
    let streamedUsage: ResponseUsage | undefined;
    for await (const event of stream) if (event.type === 'response.completed') streamedUsage = event.response.usage;
    const thirdFull = await stateless.responses.create({ ...base, input: history });
    expect(streamedUsage).toEqual(thirdFull.usage);
    expect(streamedUsage!.input_tokens).toBeGreaterThan(second.usage!.input_tokens);
  });

  it('answers 400 previous_response_not_found, in the API shape, for an unknown id and for a response sent with store: false', async () => {
    const { stateful } = await pair(() => Date.UTC(2026, 10, 23, 10, 0, 0));
    const unstored = await stateful.responses.create({ model: 'gpt-4.1', input: 'Say hello.', store: false });
    for (const id of ['resp_unknown', unstored.id]) {
      const error = await stateful.responses
        .create({ model: 'gpt-4.1', input: 'And again.', previous_response_id: id })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({
        message: `Previous response with id '${id}' not found.`,
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      });
    }
    // A stored string input continues as a user message.
    const stored = await stateful.responses.create({ model: 'gpt-4.1', input: 'Say hello.' });
    const next = await stateful.responses.create({ model: 'gpt-4.1', input: 'And again.', previous_response_id: stored.id });
    expect(next.usage!.input_tokens).toBeGreaterThan(stored.usage!.input_tokens);
    // A function_call_output may answer only a call made in the stored conversation.
    const call = { type: 'function_call_output' as const, call_id: 'call_missing', output: '{}' };
    const unanswered = await stateful.responses
      .create({ model: 'gpt-4.1', input: [call], previous_response_id: stored.id })
      .catch((caught: unknown) => caught);
    expect((unanswered as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: 'No tool call found for function call output with call_id call_missing.',
    });
  });

  it('accepts a function_call_output answering a call of the stored response', async () => {
    const emulator = await startEmulator({
      now: () => Date.UTC(2026, 10, 23, 10, 0, 0),
      apiKey: KEY,
      replies: [{ toolCalls: [{ name: 'read_file', input: { path: 'a.ts' } }] }, { text: 'Done.' }],
    });
    running.push(emulator);
    const client = new OpenAI({ apiKey: KEY, baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        name: 'read_file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: 'gpt-4.1', tools, input: 'Read a.ts.' });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'read_file' });
    const second = await client.responses.create({
      model: 'gpt-4.1',
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'export {}' }],
    });
    expect(second.output_text).toBe('Done.');
  });
});
