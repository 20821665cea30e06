import { describe, expect, it } from 'vitest';
import { messagesFromOpenAIChat } from './messages-from-reply.js';
import { toolCallChoice } from './test-support/replies.js';

describe('messagesFromOpenAIChat', () => {
  it('turns the first choice into an assistant message with parsed tool arguments', () => {
    const messages = messagesFromOpenAIChat({
      choices: [toolCallChoice({ id: 'call_1', name: 'grep', arguments: '{"pattern":"TODO"}' }, 'Checking.')],
    });
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'grep', input: { pattern: 'TODO' } },
        ],
      },
    ]);
  });

  it('names malformed tool arguments', () => {
    const completion = { choices: [toolCallChoice({ id: 'c', name: 'grep', arguments: '{"pattern":' })] };
    expect(() => messagesFromOpenAIChat(completion)).toThrow(/tool_calls\[0\]\.function\.arguments/);
  });
});
