import { Template } from '@huggingface/jinja';
import type { LoadedTokenizer } from '../../../tokens/lenml-tokenizer.js';

/** A multi-step, two-turn tool-loop workload in OpenAI wire format, shared by the local-engine tests. */
export const SYSTEM = 'You are a coding agent. Use the tools to inspect and fix the repository. Answer briefly.';
export const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'grep',
      description: 'Search files',
      parameters: { type: 'object', properties: { pattern: { type: 'string' }, glob: { type: 'string' } } },
    },
  },
];

export interface Step {
  /** Messages this request appends to the history. */
  input: Array<Record<string, unknown>>;
  /** The assistant message that answers it (appended to the history before the next step). */
  reply: Record<string, unknown>;
}

function call(id: string, name: string, input: Record<string, unknown>) {
  // Compact JSON, as clients send it: llama.cpp re-serialises it before templates that take objects.
  return { id, type: 'function', function: { name, arguments: JSON.stringify(input) } };
}

/**
 * A multi-step tool loop over two user turns. `toolCallContent` is what the adapter sends as the
 * content of a tool-call turn for the family ('' for Qwen3, whose template raises on null; null
 * for DeepSeek-V3, whose template renders tool calls only then).
 */
export function toolLoop(toolCallContent: '' | null, reasoning: boolean): Step[] {
  const think = (text: string) => (reasoning ? { reasoning_content: text } : {});
  return [
    {
      input: [{ role: 'user', content: 'Check a.ts and find the TODOs.' }],
      reply: {
        role: 'assistant',
        content: toolCallContent,
        ...think('Read a.ts and grep in parallel.'),
        tool_calls: [call('call_a', 'read_file', { path: 'a.ts' }), call('call_b', 'grep', { pattern: 'TODO', glob: '*.ts' })],
      },
    },
    {
      input: [
        { role: 'tool', tool_call_id: 'call_a', content: 'export const a = 1;' },
        { role: 'tool', tool_call_id: 'call_b', content: 'b.ts:3: // TODO handle errors' },
      ],
      reply: {
        role: 'assistant',
        content: toolCallContent,
        ...think('The TODO is in b.ts.'),
        tool_calls: [call('call_c', 'read_file', { path: 'b.ts' })],
      },
    },
    {
      input: [{ role: 'tool', tool_call_id: 'call_c', content: 'export function b() {\n  // TODO handle errors\n}' }],
      reply: { role: 'assistant', content: 'a.ts is clean; b.ts has one TODO about error handling.', ...think('Summarise.') },
    },
    {
      input: [{ role: 'user', content: 'Fix it.' }],
      reply: {
        role: 'assistant',
        content: toolCallContent,
        ...think('Rewrite b.ts.'),
        tool_calls: [call('call_d', 'read_file', { path: 'b.ts' })],
      },
    },
    {
      input: [{ role: 'tool', tool_call_id: 'call_d', content: 'export function b() {}' }],
      reply: { role: 'assistant', content: 'Done: b.ts handles errors now.', ...think('Report.') },
    },
  ];
}

/**
 * The bodies of the session and the reply each one received; earlier replies are sent back
 * without their reasoning (Cachet's default, `reasoning.send: 'never'`) unless `sendReasoning`.
 */
export function bodies(model: string, steps: Step[], sendReasoning = false) {
  const history: Array<Record<string, unknown>> = [{ role: 'system', content: SYSTEM }];
  return steps.map((step) => {
    history.push(...step.input);
    const body = { model, messages: [...history], tools: TOOLS, cache_prompt: true };
    const { reasoning_content: _dropped, ...withoutReasoning } = step.reply;
    history.push(sendReasoning ? step.reply : withoutReasoning);
    return { body, reply: step.reply };
  });
}

/**
 * The independent figure: render each prompt with the template directly, as llama.cpp hands it
 * the messages (arguments parsed to objects where `objectArguments`), tokenize, keep exactly
 * one BOS; the slot holds that prompt plus the reply's tokens without the end-of-turn token; the
 * next request reuses the longest common token prefix, less the last prompt token.
 */
export interface EngineRendering {
  objectArguments: boolean;
  addsBos: boolean;
  endOfTurn: string;
  withTools: boolean;
}

/** A chat body as llama.cpp receives it, and the assistant message it answered with. */
export interface EngineExchange {
  body: {
    messages: Array<Record<string, unknown>>;
    tools?: readonly unknown[];
    chat_template_kwargs?: Record<string, unknown>;
  };
  reply: Record<string, unknown>;
}

/**
 * Each request's prompt tokens and the reply tokens the engine keeps after it, rendered directly
 * (the body's own `tools` and `chat_template_kwargs` reach the template, as llama.cpp passes them).
 */
export function renderedSession(
  tokenizer: LoadedTokenizer,
  options: EngineRendering,
  session: readonly EngineExchange[],
): Array<{ prompt: number[]; reply: number[] }> {
  const template = new Template(tokenizer.chatTemplate!);
  const bos = tokenizer.bosToken ?? '';
  const engineMessages = (messages: Array<Record<string, unknown>>) =>
    messages.map((message) => {
      const copy: Record<string, unknown> = { ...message };
      // llama.cpp's chat layer keeps content as a string: a null content reaches the template as ''
      // (common/chat.cpp, common_chat_msg::to_json_oaicompat).
      if (copy.content === null || copy.content === undefined) copy.content = '';
      if (options.objectArguments && Array.isArray(copy.tool_calls)) {
        copy.tool_calls = (copy.tool_calls as Array<{ function: { name: string; arguments: string } }>).map((entry) => ({
          ...entry,
          function: { ...entry.function, arguments: JSON.parse(entry.function.arguments) },
        }));
      }
      return copy;
    });
  const renderText = (body: EngineExchange['body'], messages: Array<Record<string, unknown>>, addGenerationPrompt: boolean) =>
    template.render({
      ...body.chat_template_kwargs,
      messages: engineMessages(messages),
      ...(options.withTools ? { tools: body.tools ?? TOOLS } : {}),
      bos_token: bos,
      add_generation_prompt: addGenerationPrompt,
    });
  const encode = (text: string) => {
    const tokens = tokenizer.encode(text);
    const [bosId] = bos ? tokenizer.encode(bos) : [];
    return options.addsBos && bosId !== undefined && tokens[0] !== bosId ? [bosId, ...tokens] : tokens;
  };
  return session.map(({ body, reply }) => {
    const promptText = renderText(body, body.messages, true);
    const prompt = encode(promptText);
    const full = renderText(body, [...body.messages, reply], false);
    // DeepSeek-V3 re-renders the prompt's own end (it closes tool outputs only at the very end):
    // reuse then stops inside the prompt, and no reply token can count.
    const generated = full.startsWith(promptText) ? full.slice(promptText.length) : '';
    const endOfTurn = generated.lastIndexOf(options.endOfTurn);
    return { prompt, reply: tokenizer.encode(endOfTurn >= 0 ? generated.slice(0, endOfTurn) : generated) };
  });
}

/** The slot rule computed directly: longest common prefix with the previous prompt + reply, less the last prompt token. */
export function expectedReuse(
  tokenizer: LoadedTokenizer,
  options: EngineRendering,
  session: readonly EngineExchange[],
): number[] {
  let slot: number[] = [];
  return renderedSession(tokenizer, options, session).map(({ prompt, reply }) => {
    let common = 0;
    while (common < slot.length && common < prompt.length && slot[common] === prompt[common]) common++;
    slot = [...prompt, ...reply];
    return Math.min(common, prompt.length - 1);
  });
}
