import { describe, expect, it } from 'vitest';
import { messagesFromOpenAIChat } from './messages-from-reply.js';

describe('messagesFromOpenAIChat', () => {
  it('turns the first choice into an assistant message with parsed tool arguments', () => {
    const messages = messagesFromOpenAIChat({
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: 'Checking.',
            refusal: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'grep', arguments: '{"pattern":"TODO"}' } }],
          },
        },
      ],
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
    const completion = {
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls' as const,
          logprobs: null,
          message: {
            role: 'assistant' as const,
            content: null,
            refusal: null,
            tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'grep', arguments: '{"pattern":' } }],
          },
        },
      ],
    };
    expect(() => messagesFromOpenAIChat(completion)).toThrow(/tool_calls\[0\]\.function\.arguments/);
  });
});
