import { describe, expect, it } from 'vitest';
import { keyFieldsOf } from './key-fields.js';
import { opensTurn } from './turn-start.js';

const bytesOf = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));
const bigResult = 'x'.repeat(50_000);

/** [name, body, opens a turn]: each judged from the parsed body and from its spans. */
const CASES: Array<[string, Record<string, unknown>, boolean]> = [
  ['Anthropic user text', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, true],
  ['Anthropic user blocks', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, true],
  [
    'Anthropic tool_result',
    {
      messages: [
        { role: 'user', content: 'run it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: bigResult }] },
      ],
    },
    false,
  ],
  [
    'Anthropic tool_result with text after it',
    {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
            { type: 'text', text: 'go on' },
          ],
        },
      ],
    },
    false,
  ],
  [
    'assistant prefill',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '{' },
      ],
    },
    false,
  ],
  [
    'Chat user',
    {
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'hi' },
      ],
    },
    true,
  ],
  [
    'Chat tool message',
    {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: bigResult },
      ],
    },
    false,
  ],
  ['Responses string input', { input: 'hi' }, true],
  ['Responses user message', { input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] }, true],
  ['Responses user without type', { input: [{ role: 'user', content: 'hi' }] }, true],
  [
    'Responses function_call_output',
    {
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: bigResult },
      ],
    },
    false,
  ],
  [
    'Responses output only (previous_response_id)',
    { previous_response_id: 'r1', input: [{ type: 'function_call_output', call_id: 'c1', output: 'ok' }] },
    false,
  ],
  ['no messages', { model: 'm' }, true],
  ['empty messages', { messages: [] }, true],
];

describe('opensTurn', () => {
  it.each(CASES)('%s', (_name, body, expected) => {
    expect(opensTurn(body)).toBe(expected);
    expect(keyFieldsOf(bytesOf(body))?.opensTurn).toBe(expected);
  });

  it('reads the spans of the last item only, in bodies with duplicate keys as JSON.parse does', () => {
    const text = '{"messages":[{"role":"user","content":"a"},{"role":"assistant","role":"user","content":[{"type":"text"}]}]}';
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(opensTurn(body)).toBe(true);
    expect(keyFieldsOf(new TextEncoder().encode(text))?.opensTurn).toBe(true);
  });
});
