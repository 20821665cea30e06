import { describe, expect, it } from 'vitest';
import { messagesFromOpenAIResponses } from './messages-from-reply.js';

describe('messagesFromOpenAIResponses', () => {
  it('keeps output text and function calls (by call_id), skips reasoning items', () => {
    const messages = messagesFromOpenAIResponses({
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Running the tests.', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_9', name: 'run_tests', arguments: '{"target":"all"}' },
      ],
    } as never);
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running the tests.' },
          { type: 'tool_use', id: 'call_9', name: 'run_tests', input: { target: 'all' } },
        ],
      },
    ]);
  });

  it('names an output item it cannot store', () => {
    expect(() =>
      messagesFromOpenAIResponses({ output: [{ type: 'web_search_call', id: 'ws', status: 'completed' }] } as never),
    ).toThrow(/response\.output\[0\]\.type/);
  });
});
