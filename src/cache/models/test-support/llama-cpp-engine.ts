import { getLlama, type Llama, LlamaLogLevel, type LlamaModel, type Token } from 'node-llama-cpp';

/**
 * llama.cpp as a server runs it, for the real-engine tests: the prompt is rendered by llama.cpp's
 * own Jinja engine (`common/jinja`, through node-llama-cpp's `AddonJinjaRenderer` binding) from the
 * GGUF's embedded `tokenizer.chat_template`, after the request conventions of its OpenAI-compatible
 * layer, and tokenized by llama.cpp's tokenizer. Written from llama.cpp's source (the tree node-llama-cpp
 * 3.22.1 bundles, `common/chat.cpp`), independently of Cachet's own `llama-cpp-conventions.ts`:
 * - `common_chat_msg::to_json_oaicompat`: content is a string, `""` when null or empty; the
 *   message keys are role, content, reasoning_content (when not empty), tool_call_id, tool_calls
 *   (`{type, function: {name, arguments}, id}`, arguments the client's string);
 * - `common_chat_templates_apply_jinja` workarounds, decided by the template's capabilities
 *   (`common/jinja/caps.cpp`, probed here the same way, by rendering): `developer` → `system`; a
 *   template that never reads a system message gets it merged into the next message with `\n`
 *   (`system_message_not_supported`); a template that reads object arguments gets them parsed
 *   (`func_args_not_string`);
 * - `common_chat_template_direct_apply_impl`: `bos_token`/`eos_token` of the vocabulary,
 *   `enable_thinking` true, `tools` when sent, then `datetime`/`date_string` of now and the
 *   request's `chat_template_kwargs` (`common_chat_extra_context`), `add_generation_prompt`; the
 *   BOS text the template printed is stripped when the vocabulary adds BOS, which the tokenizer
 *   then adds (`tokenize(prompt, add_special = true, parse_special = true)`).
 */

/** llama.cpp's Jinja renderer as node-llama-cpp binds it (`llama/addon/AddonJinjaRenderer.cpp`). */
interface NativeJinja {
  render(items: Record<string, unknown>): string;
}
type NativeJinjaConstructor = new (template: string) => NativeJinja;

let sharedLlama: Promise<Llama> | undefined;

/** The engine, loaded once per process: prebuilt CPU binary, never built or downloaded. */
export function llamaEngine(): Promise<Llama> {
  sharedLlama ??= getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  });
  return sharedLlama;
}

export type WireMessage = Record<string, unknown>;
export interface WireBody {
  messages: WireMessage[];
  tools?: readonly unknown[];
  chat_template_kwargs?: Record<string, unknown>;
}

/** What the engine made of a request: its prompt, or the template's exception (llama-server answers an error). */
export type EnginePrompt = { text: string; tokens: number[] } | { rejected: string };

export interface EngineModel {
  model: LlamaModel;
  /** The GGUF's `tokenizer.chat_template`, as the engine read it. */
  chatTemplate: string;
  capabilities: { systemRole: boolean; objectArguments: boolean };
  /** The prompt llama-server renders and tokenizes for a Chat Completions body. */
  prompt(body: WireBody): EnginePrompt;
  /** The tokens the engine generates for `reply` and keeps in the slot (up to its end-of-generation token). */
  replyTokens(body: WireBody, reply: WireMessage): number[];
}

/** Load a GGUF and read its template; the caller disposes `model`. */
export async function loadEngineModel(modelPath: string): Promise<EngineModel> {
  const llama = await llamaEngine();
  const model = await llama.loadModel({ modelPath });
  const chatTemplate = (model.fileInfo.metadata.tokenizer as { chat_template?: unknown }).chat_template;
  if (typeof chatTemplate !== 'string') throw new Error(`${modelPath}: no tokenizer.chat_template`);
  const bindings = (llama as unknown as { _bindings: { AddonJinjaRenderer: NativeJinjaConstructor } })._bindings;
  const jinja = new bindings.AddonJinjaRenderer(chatTemplate);
  const bos = model.tokens.bosString ?? '';
  const eos = model.tokens.eosString ?? '';
  const now = new bindings.AddonJinjaRenderer("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%b %d %Y') }}");
  const capabilities = probeCapabilities(jinja, bos, eos);

  function renderText(body: WireBody, messages: WireMessage[], addGenerationPrompt: boolean): string {
    // common_chat_extra_context: the server's clock, as llama.cpp's own strftime formats it.
    const [dateString, datetime] = now.render({}).split('|');
    const variables: Record<string, unknown> = {
      messages: templateMessages(messages, capabilities),
      bos_token: bos,
      eos_token: eos,
      enable_thinking: true,
      ...(body.tools ? { tools: body.tools } : {}),
      datetime,
      date_string: dateString,
      ...body.chat_template_kwargs,
      ...(addGenerationPrompt ? { add_generation_prompt: true } : {}),
    };
    const text = jinja.render(variables);
    return model.tokens.shouldPrependBosToken && bos && text.startsWith(bos) ? text.slice(bos.length) : text;
  }
  const tokenize = (text: string): number[] => {
    const tokens = model.tokenize(text, true) as number[];
    const bosToken = model.tokens.bos;
    return model.tokens.shouldPrependBosToken && bosToken !== null ? [bosToken, ...tokens] : tokens;
  };

  return {
    model,
    chatTemplate,
    capabilities,
    prompt(body) {
      try {
        const text = renderText(body, body.messages, true);
        return { text: model.tokens.shouldPrependBosToken ? bos + text : text, tokens: tokenize(text) };
      } catch (error) {
        return { rejected: error instanceof Error ? error.message : String(error) };
      }
    },
    replyTokens(body, reply) {
      const prompt = renderText(body, body.messages, true);
      let full: string;
      try {
        full = renderText(body, [...body.messages, reply], false);
      } catch {
        // A reply the template raises on (Llama 3.x: parallel calls) rejects the next request anyway.
        return [];
      }
      // A template that re-renders the end of the prompt (DeepSeek-V3 closes tool outputs only at
      // the very end) leaves the slot inside the prompt: no generated token is ever reused.
      if (!full.startsWith(prompt)) return [];
      const generated = model.tokenize(full.slice(prompt.length), true) as number[];
      const end = generated.findIndex((token) => model.isEogToken(token as Token));
      return end === -1 ? generated : generated.slice(0, end);
    },
  };
}

/** The request's messages as `to_json_oaicompat` and the capability workarounds hand them to the template. */
function templateMessages(messages: readonly WireMessage[], capabilities: EngineModel['capabilities']): WireMessage[] {
  const converted = messages.map((message) => {
    const json: WireMessage = { role: message.role === 'developer' ? 'system' : message.role };
    json.content = typeof message.content === 'string' ? message.content : '';
    if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') {
      json.reasoning_content = message.reasoning_content;
    }
    if (typeof message.tool_call_id === 'string' && message.tool_call_id !== '') json.tool_call_id = message.tool_call_id;
    if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      json.tool_calls = (message.tool_calls as Array<{ id?: string; function: { name: string; arguments: string } }>).map(
        (call) => ({
          type: 'function',
          function: {
            name: call.function.name,
            arguments: capabilities.objectArguments ? JSON.parse(call.function.arguments) : call.function.arguments,
          },
          ...(call.id ? { id: call.id } : {}),
        }),
      );
    }
    return json;
  });
  if (!capabilities.systemRole && converted[0]?.role === 'system') {
    const [system, next] = converted;
    if (next) next.content = `${system!.content as string}\n${next.content as string}`;
    converted.shift();
  }
  return converted;
}

/** `caps_get`'s probes, judged by what the rendering shows: does the template read a system message, object arguments? */
function probeCapabilities(jinja: NativeJinja, bos: string, eos: string): EngineModel['capabilities'] {
  const shows = (variables: Record<string, unknown>, marker: string) => {
    try {
      return jinja.render({ bos_token: bos, eos_token: eos, ...variables }).includes(marker);
    } catch {
      return false;
    }
  };
  const systemRole = shows(
    {
      messages: [
        { role: 'system', content: 'SYSTEM_MARKER' },
        { role: 'user', content: 'User message' },
      ],
    },
    'SYSTEM_MARKER',
  );
  const tools = [
    {
      type: 'function',
      function: {
        name: 'tool1',
        description: 'Tool description',
        parameters: { type: 'object', properties: { arg: { type: 'string' } } },
      },
    },
  ];
  const objectArguments = shows(
    {
      tools,
      messages: [
        { role: 'user', content: 'User message' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call00001', type: 'function', function: { name: 'tool1', arguments: { arg: 'ARG_MARKER' } } }],
        },
        { role: 'tool', tool_call_id: 'call00001', content: 'Tool response' },
        { role: 'assistant', content: 'Done' },
        { role: 'user', content: 'Thanks' },
      ],
    },
    'ARG_MARKER',
  );
  return { systemRole, objectArguments };
}
