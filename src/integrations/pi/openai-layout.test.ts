import { describe, expect, it } from 'vitest';
import { validateChatBody, validateResponsesBody } from '../../gateway/emulate/validate-openai-body.js';
import { cachetPiHooks } from './cachet-pi-hooks.js';

const responsesModel = { id: 'gpt-5', api: 'openai-responses', provider: 'openai' };
const chatModel = { id: 'gpt-4.1', api: 'openai-completions', provider: 'openai' };

const toolLoopInput = (clock: string) => [
  { role: 'developer', content: `You are a careful agent.\n\nCurrent time: ${clock}` },
  { role: 'user', content: [{ type: 'input_text', text: 'read the file' }] },
  { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'export const a = 1;' },
];

describe('cachetPiHooks on OpenAI Responses payloads', () => {
  it('puts a request-scoped tail after the tool results as a message in the system prompt’s role', () => {
    const hooks = cachetPiHooks({
      conversationId: 'c1',
      tail: () => [{ text: 'Recall: tests live in test/', scope: 'request' }],
    });
    const body = hooks.onPayload({ model: 'gpt-5', input: toolLoopInput('10:00') }, responsesModel) as Record<string, unknown>;
    const input = body.input as Array<Record<string, unknown>>;
    expect(input).toHaveLength(5);
    expect(input.at(-1)).toEqual({ role: 'developer', content: 'Recall: tests live in test/' });
    expect(input.slice(0, 4)).toEqual(toolLoopInput('10:00'));
    expect(body.prompt_cache_key).toBe('cachet-c1');
    expect(validateResponsesBody(body)).toBeNull();
  });

  it('appends the tail to a final user message as input_text, and keeps a turn-scoped text in the turn’s opening message', () => {
    const hooks = cachetPiHooks({ conversationId: 'c2', tail: () => [{ text: 'Branch: main', scope: 'turn' }] });
    const first = hooks.onPayload({ model: 'gpt-5', input: toolLoopInput('10:00').slice(0, 2) }, responsesModel) as {
      input: Array<{ content: unknown }>;
    };
    expect(first.input[1]!.content).toEqual([
      { type: 'input_text', text: 'read the file' },
      { type: 'input_text', text: 'Branch: main' },
    ]);
    const second = hooks.onPayload({ model: 'gpt-5', input: toolLoopInput('10:00') }, responsesModel) as {
      input: Array<{ content: unknown }>;
    };
    // The tool step reuses the opening message as the first request sent it: the prefix stays byte-equal.
    expect(second.input[1]!.content).toEqual(first.input[1]!.content);
    expect(second.input).toHaveLength(4);
  });

  it('with volatile: auto, moves a changed clock out of the developer message into the turn’s user message', () => {
    const hooks = cachetPiHooks({ conversationId: 'c3', volatile: 'auto' });
    hooks.onPayload({ model: 'gpt-5', input: toolLoopInput('10:00').slice(0, 2) }, responsesModel);
    const later = [
      ...toolLoopInput('10:05'),
      { role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'now test it' }] },
    ];
    const body = hooks.onPayload({ model: 'gpt-5', input: later }, responsesModel) as { input: Array<Record<string, unknown>> };
    expect(body.input[0]).toEqual({ role: 'developer', content: 'You are a careful agent.' });
    expect(JSON.stringify(body.input.at(-1))).toContain('Current time: 10:05');
    expect(validateResponsesBody(body)).toBeNull();
  });
});

describe('cachetPiHooks on OpenAI Chat Completions payloads', () => {
  it('never separates a tool call from its result, and reports a tail it cannot send after a prefill', () => {
    const errors: unknown[] = [];
    const hooks = cachetPiHooks({
      conversationId: 'c4',
      tail: () => [{ text: 'Now: 10:00', scope: 'request' }],
      onError: (error) => errors.push(error),
    });
    const messages = [
      { role: 'system', content: 'You are a careful agent.' },
      { role: 'user', content: 'read a.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: 'export const a = 1;' },
    ];
    const body = hooks.onPayload({ model: 'gpt-4.1', messages }, chatModel) as { messages: Array<Record<string, unknown>> };
    expect(body.messages.at(-1)).toEqual({ role: 'system', content: 'Now: 10:00' });
    expect(validateChatBody(body)).toBeNull();
    const prefill = [...messages, { role: 'assistant', content: 'The file' }];
    const withPrefill = hooks.onPayload({ model: 'gpt-4.1', messages: prefill }, chatModel) as { messages: unknown[] };
    expect(withPrefill.messages).toEqual(prefill);
    expect(errors).toHaveLength(1);
  });

  it('sends the tail after tool results as a user message to providers other than OpenAI (a local chat template may refuse a late system message)', () => {
    const hooks = cachetPiHooks({ conversationId: 'c6', tail: () => [{ text: 'Now: 10:00', scope: 'request' }] });
    const messages = [
      { role: 'system', content: 'You are a careful agent.' },
      { role: 'user', content: 'read a.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: 'export const a = 1;' },
    ];
    const local = { id: 'qwen3-8b', api: 'openai-completions', provider: 'llama.cpp' };
    const body = hooks.onPayload({ model: 'qwen3-8b', messages }, local) as { messages: Array<Record<string, unknown>> };
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Now: 10:00' }] });
    expect(body.messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(validateChatBody(body)).toBeNull();
  });

  it('returns a payload without a message list unchanged and reports it', () => {
    const errors: unknown[] = [];
    const hooks = cachetPiHooks({ conversationId: 'c5', onError: (error) => errors.push(error) });
    const payload = { model: 'gpt-4.1', messages: 'not a list' };
    expect(hooks.onPayload(payload, chatModel)).toBe(payload);
    expect(String(errors[0])).toMatch(/payload\.messages/);
  });
});
