import type { ScriptedAnswer } from './scripted-server.js';

type Block = Record<string, unknown>;

/**
 * A scripted step (Anthropic-style content blocks from `scriptedContents`) as an OpenAI reply:
 * text and parallel tool calls; thinking blocks have no counterpart on these wire shapes and are dropped.
 */
function stepParts(content: Block[]): { text: string | null; calls: Array<{ id: string; name: string; arguments: string }> } {
  const texts = content.filter((block) => block.type === 'text').map((block) => String(block.text));
  const calls = content
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ id: String(block.id), name: String(block.name), arguments: JSON.stringify(block.input) }));
  return { text: texts.length > 0 ? texts.join('') : null, calls };
}

/** A Chat Completions reply (JSON) for one scripted step. */
export function chatCompletionReply(content: Block[], id: string): ScriptedAnswer {
  const { text, calls } = stepParts(content);
  const message: Block = { role: 'assistant', content: text, refusal: null };
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    kind: 'json',
    body: {
      id,
      object: 'chat.completion',
      created: 1_764_000_000,
      model: 'gpt-4.1',
      choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 } },
    },
  };
}

/** A Responses API reply (JSON) for one scripted step. */
export function responsesReply(content: Block[], id: string): ScriptedAnswer {
  const { text, calls } = stepParts(content);
  const output: Block[] = [];
  if (text !== null) {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  }
  for (const call of calls) {
    output.push({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    });
  }
  return {
    kind: 'json',
    body: {
      id: `resp_${id}`,
      object: 'response',
      created_at: 1_764_000_000,
      model: 'gpt-4.1',
      status: 'completed',
      error: null,
      incomplete_details: null,
      output,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}

/** A Chat Completions reply for one scripted step as server-sent chunks (text, then each tool call, then usage). */
export function chatCompletionChunks(content: Block[], id: string): ScriptedAnswer {
  const { text, calls } = stepParts(content);
  const chunk = (delta: Block, finish: string | null = null) => ({
    data: {
      id,
      object: 'chat.completion.chunk',
      created: 1_764_000_000,
      model: 'gpt-4.1',
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  const events: Array<{ data: unknown }> = [chunk({ role: 'assistant', content: '' })];
  if (text) events.push(chunk({ content: text }));
  for (const [index, call] of calls.entries()) {
    events.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] }),
    );
  }
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  events.push({
    data: {
      id,
      object: 'chat.completion.chunk',
      created: 1_764_000_000,
      model: 'gpt-4.1',
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  });
  return { kind: 'sse', events };
}
