import type { ScriptedAnswer } from './scripted-server.js';

/** What the scripted model says: text, or tool calls. */
export type ScriptedTurn = { text: string } | { toolCalls: Array<{ id: string; name: string; input: Record<string, unknown> }> };

export interface ReplyUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const DEFAULT_USAGE: ReplyUsage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/** A Messages API reply for a scripted turn, as JSON or as its server-sent events. */
/** Message ids must differ between replies: LangGraph's message reducer merges messages with one id. */
export function anthropicReply(
  turn: ScriptedTurn,
  stream: boolean,
  usage: ReplyUsage = DEFAULT_USAGE,
  id = 'msg_scripted',
): ScriptedAnswer {
  const content =
    'text' in turn
      ? [{ type: 'text', text: turn.text }]
      : turn.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input }));
  const stopReason = 'text' in turn ? 'end_turn' : 'tool_use';
  const message = { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_sequence: null };
  if (!stream) return { kind: 'json', body: { ...message, content, stop_reason: stopReason, usage } };
  const events: Array<{ event: string; data: unknown }> = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      },
    },
  ];
  content.forEach((block, index) => {
    if ('text' in block) {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } },
      });
    } else {
      const { input, ...start } = block as { input: unknown };
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { ...start, input: {} } },
      });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { kind: 'sse', events };
}
