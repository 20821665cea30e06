import { describe, expect, it } from 'vitest';
import { llamaCppTemplateMessage } from './llama-cpp-conventions.js';

const call = { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } };

describe('llamaCppTemplateMessage (what llama.cpp hands the template)', () => {
  it('turns a null or absent content into "" — never null — beside tool calls', () => {
    expect(llamaCppTemplateMessage({ role: 'assistant', content: null, tool_calls: [call] }, { objectArguments: false })).toEqual(
      {
        role: 'assistant',
        content: '',
        tool_calls: [call],
      },
    );
    expect(llamaCppTemplateMessage({ role: 'assistant', tool_calls: [call] }, { objectArguments: false }).content).toBe('');
  });

  it('joins text parts and parses arguments into objects only for templates that read them as a mapping', () => {
    const message = {
      role: 'user',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    };
    expect(llamaCppTemplateMessage(message, { objectArguments: true }).content).toBe('ab');
    const parsed = llamaCppTemplateMessage({ role: 'assistant', content: '', tool_calls: [call] }, { objectArguments: true });
    expect(parsed.tool_calls).toEqual([{ ...call, function: { name: 'read_file', arguments: { path: 'a.ts' } } }]);
  });

  it('leaves arguments that are not JSON as the string (the engine would answer 500)', () => {
    const broken = { ...call, function: { name: 'read_file', arguments: '{not json' } };
    const message = llamaCppTemplateMessage({ role: 'assistant', content: '', tool_calls: [broken] }, { objectArguments: true });
    expect(message.tool_calls).toEqual([broken]);
  });

  it('does not change the message it was given', () => {
    const original = { role: 'assistant', content: null, tool_calls: [call] };
    llamaCppTemplateMessage(original, { objectArguments: true });
    expect(original.content).toBeNull();
    expect(original.tool_calls[0]).toBe(call);
  });
});
