import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { messagesFromAnthropic } from './messages-from-reply.js';

describe('messagesFromAnthropic', () => {
  it('keeps text, tool calls and signed thinking in order', () => {
    const messages = messagesFromAnthropic({
      content: [
        { type: 'thinking', thinking: 'Look first.', signature: 'sig-1' },
        { type: 'text', text: 'Reading the file.', citations: null },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' }, caller: { type: 'direct' } },
        { type: 'redacted_thinking', data: 'opaque' },
      ],
    } as never);
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look first.', signature: 'sig-1' },
          { type: 'text', text: 'Reading the file.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'redacted_thinking', data: 'opaque' },
        ],
      },
    ]);
  });

  it('names the block it cannot store', () => {
    expect(() =>
      messagesFromAnthropic({ content: [{ type: 'server_tool_use', id: 'x', name: 'web_search', input: {} }] } as never),
    ).toThrow(/reply\.content\[0\]\.type/);
    expect(() => messagesFromAnthropic({} as never)).toThrow(ValidationError);
  });
});
