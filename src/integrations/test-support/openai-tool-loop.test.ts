import { describe, expect, it } from 'vitest';
import { openAIToolLoopViolation } from './openai-tool-loop.js';

const call = (id: string) => ({ id, type: 'function', function: { name: 'lookup', arguments: '{}' } });
const own = {
  model: 'gpt-4.1',
  messages: [
    { role: 'system', content: 'Be careful.\n\nCurrent time: 09:00' },
    { role: 'user', content: 'read it' },
    { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
    { role: 'tool', tool_call_id: 'a', content: 'found a' },
    { role: 'tool', tool_call_id: 'b', content: 'found b' },
  ],
};

describe('openAIToolLoopViolation: the OpenAI-shape validity and meaning check can fail', () => {
  it('accepts a cache key, a tail system message after the results and the moved clock', () => {
    const cachet = {
      ...own,
      prompt_cache_key: 'cachet-x',
      messages: [
        { role: 'system', content: 'Be careful.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'read it' },
            { type: 'text', text: 'Current time: 09:00' },
          ],
        },
        ...own.messages.slice(2),
        { role: 'system', content: 'tail' },
      ],
    };
    expect(openAIToolLoopViolation('chat', cachet, own, ['tail'], ['Current time: 09:00'])).toBeNull();
  });

  it('refuses a tail between parallel tool results, a changed user text and a missing cache key', () => {
    const split = {
      ...own,
      prompt_cache_key: 'k',
      messages: [...own.messages.slice(0, 4), { role: 'user', content: 'tail' }, own.messages[4]],
    };
    expect(openAIToolLoopViolation('chat', split, own, ['tail'])).toMatch(/^refused/);
    const changed = {
      ...own,
      prompt_cache_key: 'k',
      messages: [own.messages[0], { role: 'user', content: 'read that' }, ...own.messages.slice(2)],
    };
    expect(openAIToolLoopViolation('chat', changed, own, [])).toBe('item 1 differs from the library’s own');
    expect(openAIToolLoopViolation('chat', own, own, [])).toBe('no prompt_cache_key');
  });

  it('refuses Responses input where other input comes between a call and its output', () => {
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: 'read it' }] },
      { type: 'function_call', call_id: 'a', name: 'lookup', arguments: '{}' },
      { role: 'system', content: 'tail' },
      { type: 'function_call_output', call_id: 'a', output: 'found a' },
    ];
    const body = { model: 'gpt-4.1', prompt_cache_key: 'k', input };
    expect(openAIToolLoopViolation('responses', body, body, ['tail'])).toMatch(/not answered before other input/);
  });
});
