import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../events/event-bus.js';
import { startEmulator } from '../emulate/start-emulator.js';
import { TEST_KEY } from '../test-support/proxy-harness.js';
import { startProxy } from './start-proxy.js';

type Body = Record<string, unknown>;
const system = 'You are a careful assistant who reads files before answering. '.repeat(80);
const tool = { name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: {} } };
const chatTool = { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } };
const responsesTool = { type: 'function', name: 'read_file', parameters: { type: 'object', properties: {} } };

/** Each API's history after: a question, a tool call and its result, then a second question. */
const anthropic = (messages: Body[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 32, system, tools: [tool], messages });
const anthropicSteps: Body[][] = [
  [{ role: 'user', content: 'What is in README.md?' }],
  [
    { role: 'user', content: 'What is in README.md?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Cachet: prompt caching.' }] },
  ],
];
anthropicSteps.push([
  ...anthropicSteps[1]!,
  { role: 'assistant', content: 'It describes Cachet.' },
  { role: 'user', content: 'And docs/import.md?' },
]);

const chat = (messages: Body[]) => ({
  model: 'gpt-4.1',
  tools: [chatTool],
  messages: [{ role: 'system', content: system }, ...messages],
});
const call = { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } };
const chatSteps: Body[][] = [
  [{ role: 'user', content: 'What is in README.md?' }],
  [
    { role: 'user', content: 'What is in README.md?' },
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: 'Cachet: prompt caching.' },
  ],
];
chatSteps.push([
  ...chatSteps[1]!,
  { role: 'assistant', content: 'It describes Cachet.' },
  { role: 'user', content: 'And docs?' },
]);

const responses = (input: Body[]) => ({ model: 'gpt-4.1', instructions: system, tools: [responsesTool], store: false, input });
const question = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in README.md?' }] };
const responsesSteps: Body[][] = [
  [question],
  [
    question,
    { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'Cachet: prompt caching.' },
  ],
];
responsesSteps.push([
  ...responsesSteps[1]!,
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It describes Cachet.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And docs?' }] },
]);

describe('cachet proxy numbers turns and steps from the last message', () => {
  const bus = new EventBus();
  const recorded: Array<{ sessionId: string; turn: number; step: number }> = [];
  bus.on('usage.recorded', (event) =>
    recorded.push({ sessionId: event.sessionId, turn: event.payload.turn, step: event.payload.step }),
  );
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  beforeAll(async () => {
    emulator = await startEmulator({ apiKey: TEST_KEY });
    proxy = await startProxy({ upstream: emulator.url, bus });
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  const send = async (path: string, body: Body) => {
    const reply = await fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify(body),
    });
    expect(reply.status, await reply.clone().text()).toBe(200);
    await reply.text();
  };

  it.each([
    ['Anthropic tool_result blocks', '/v1/messages', anthropicSteps.map(anthropic)],
    ['OpenAI Chat role: tool', '/v1/chat/completions', chatSteps.map(chat)],
    ['OpenAI Responses function_call_output', '/v1/responses', responsesSteps.map(responses)],
  ])('%s: question (0.0), tool result (0.1), next question (1.0)', async (_name, path, bodies) => {
    recorded.length = 0;
    for (const body of bodies) await send(path, body);
    await proxy.settled();
    expect(new Set(recorded.map((event) => event.sessionId)).size).toBe(1);
    expect(recorded.map(({ turn, step }) => `${turn}.${step}`)).toEqual(['0.0', '0.1', '1.0']);
  });
});
