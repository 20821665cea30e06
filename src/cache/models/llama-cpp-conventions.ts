/**
 * What llama.cpp's OpenAI-compatible layer does to a Chat Completions body before its chat
 * template runs, so that a cache model renders the prompt the engine really renders.
 *
 * Sources (ggml-org/llama.cpp, `common/chat.cpp`, read 2026-11-25):
 * - `common_chat_msgs_parse_oaicompat` parses every message into `common_chat_msg`, whose
 *   `content` is a `std::string`: a `null` content (allowed beside `tool_calls`) becomes empty.
 *   Text parts are kept as parts; `arguments` is kept as the string the client sent (an object is
 *   serialised with `dump()`).
 * - `common_chat_msg::to_json_oaicompat` hands the template `"content": ""` for an empty content,
 *   never `null`; for a template that takes string content only, text parts are joined.
 * - Templates that iterate tool-call arguments as a mapping get them parsed into an object
 *   (the family fact `toolArguments: 'object'`); others get the string.
 * - `add_generation_prompt` is true for a chat completion; `bos_token`/`eos_token` are the
 *   vocabulary's, and the tokenizer adds BOS only when the template has not printed it.
 * - Templates may call `strftime_now(format)`: the server's current local time (`common/jinja/value.cpp`).
 *   Every render also gets `date_string` (`%d %b %Y`) and `datetime` (`%b %d %Y`) of the current
 *   time (`common_chat_extra_context`; `chat_template_kwargs` override them). Llama 3.1/3.3 print
 *   `Today Date: 25 Nov 2026` from `date_string`, 3.2 from `strftime_now`, so their prefix changes at
 *   midnight: a clock in the prompt that no wire body shows.
 *
 * The consequence that matters most: a template that renders tool calls only when `content` is
 * none (DeepSeek-V3) never renders them through llama.cpp, whatever the client sends.
 */

import { strftime } from '../../providers/openai-compatible/strftime.js';
import { isRecord, type JsonRecord } from '../wire/json-helpers.js';

export interface LlamaCppMessageOptions {
  /** The template reads tool-call arguments as a mapping (`tool_call.arguments.items()`). */
  objectArguments: boolean;
}

/**
 * One wire message as llama.cpp's chat layer hands it to the template.
 *
 * @example
 * llamaCppTemplateMessage({ role: 'assistant', content: null, tool_calls: [...] }, { objectArguments: false }).content // ''
 */
export function llamaCppTemplateMessage(message: unknown, options: LlamaCppMessageOptions): JsonRecord {
  const record: JsonRecord = isRecord(message) ? { ...message } : {};
  if (Array.isArray(record.content)) {
    record.content = record.content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  } else if (typeof record.content !== 'string') {
    record.content = '';
  }
  if (options.objectArguments && Array.isArray(record.tool_calls)) {
    record.tool_calls = record.tool_calls.map(parsedArguments);
  }
  return record;
}

function parsedArguments(call: unknown): unknown {
  if (!isRecord(call) || !isRecord(call.function) || typeof call.function.arguments !== 'string') return call;
  try {
    return { ...call, function: { ...call.function, arguments: JSON.parse(call.function.arguments) as unknown } };
  } catch {
    // llama.cpp answers 500 on arguments that are not JSON; the template gets the string here.
    return call;
  }
}

/**
 * The variables llama.cpp gives every template render: the vocabulary's BOS/EOS text and
 * `strftime_now` at the request's time (`at`, in epoch milliseconds; UTC stands in for the
 * server's local zone). `strftime_now` knows the fields templates use: %d %m %Y %y %b %B %H %M %S %%.
 */
export function llamaCppTemplateVariables(tokens: { bos: string; eos: string }, at: number): Record<string, unknown> {
  return {
    bos_token: tokens.bos,
    eos_token: tokens.eos,
    date_string: strftime('%d %b %Y', at),
    datetime: strftime('%b %d %Y', at),
    strftime_now: (format: string) => strftime(format, at),
  };
}

/**
 * The messages after llama.cpp's `system_message_not_supported` workaround (`common/chat.cpp`,
 * applied when the template's capability probe finds it never reads a system message,
 * `common/jinja/caps.cpp`): a leading system message is merged into the next message as
 * `system + "\n" + content`, or dropped when it is alone. Gemma 2's template raises on a system
 * message; through llama.cpp it never sees one.
 *
 * @example
 * llamaCppMergedSystemMessage([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }])
 * // [{ role: 'user', content: 'Be brief.\nHi' }]
 */
export function llamaCppMergedSystemMessage(messages: readonly JsonRecord[]): JsonRecord[] {
  const [first, next, ...rest] = messages;
  if (first?.role !== 'system') return [...messages];
  if (!next) return [];
  return [{ ...next, content: `${String(first.content ?? '')}\n${String(next.content ?? '')}` }, ...rest];
}

/**
 * llama.cpp's probe of whether a template renders a system message (`caps_get`, "system prompt"):
 * a system and a user message are rendered; a template that raises or leaves the system text out
 * does not support the system role.
 */
export function templateRendersSystemRole(render: (messages: JsonRecord[]) => string): boolean {
  try {
    return render([
      { role: 'system', content: 'System message' },
      { role: 'user', content: 'User message' },
    ]).includes('System message');
  } catch {
    return false;
  }
}
