import { describe, expect, it } from 'vitest';
import { readAnthropicReply } from './parse-stream.js';

const sse = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

describe('readAnthropicReply, streamed', () => {
  const start = sse('message_start', {
    type: 'message_start',
    message: { id: 'msg_1', usage: { input_tokens: 10, cache_read_input_tokens: 0, output_tokens: 1 } },
  });

  it('merges the final counts of message_delta over message_start', () => {
    const reader = readAnthropicReply(true);
    reader.push(start);
    reader.push(sse('message_delta', { type: 'message_delta', usage: { output_tokens: 5, cache_read_input_tokens: null } }));
    reader.push(sse('message_stop', { type: 'message_stop' }));
    const summary = reader.finish();
    expect(summary.complete).toBe(true);
    expect(summary.responseId).toBe('msg_1');
    expect(summary.usage).toMatchObject({ uncachedInputTokens: 10, outputTokens: 5, cacheReadTokens: 0 });
  });

  it('keeps a usage member named "__proto__" a member: its fields never read as counts', () => {
    const reader = readAnthropicReply(true);
    reader.push(start);
    // JSON.stringify writes an own "__proto__" member as the wire would carry it.
    const delta = JSON.parse(
      '{"type":"message_delta","usage":{"output_tokens":5,"__proto__":{"cache_creation_input_tokens":999}}}',
    );
    reader.push(sse('message_delta', delta));
    reader.push(sse('message_stop', { type: 'message_stop' }));
    expect(reader.finish().usage).toMatchObject({ uncachedInputTokens: 10, outputTokens: 5, cacheWrite5mTokens: 0 });
  });
});
