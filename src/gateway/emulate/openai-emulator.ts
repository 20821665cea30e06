import type { CacheModel, CacheVerdict } from '../../cache/models/cache-verdict.js';
import type { EmulatorResponse } from './emulator-response.js';
import { sseEvent } from './emulator-response.js';
import type { EmulatorState } from './emulator-state.js';
import type { ScriptedReply } from './reply-script.js';
import { validateChatBody, validateResponsesBody } from './validate-openai-body.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The OpenAI error body: `{ error: { message, type, param, code } }`. */
export function openAIError(
  status: number,
  type: string,
  message: string,
  code: string | null = null,
  param: string | null = null,
): EmulatorResponse {
  return { type: 'error', status, body: { error: { message, type, param, code } } };
}

interface Judged {
  verdict: CacheVerdict;
  reply: ScriptedReply;
  outputTokens: number;
  created: number;
}

function judge(
  state: EmulatorState,
  body: JsonRecord,
  at: number,
  lastUser: string,
  cache: CacheModel = state.openaiCache,
): Judged | EmulatorResponse {
  const verdict = cache.judge(body, { at });
  if (verdict.rejected) return openAIError(400, 'invalid_request_error', verdict.rejected);
  const reply = state.replies.next(lastUser);
  const outputTokens =
    state.openaiCounter.countText(reply.text ?? '') +
    (reply.toolCalls ?? []).reduce((total, call) => total + state.openaiCounter.countText(JSON.stringify(call.input)), 0);
  return { verdict, reply, outputTokens, created: Math.floor(at / 1000) };
}

/**
 * Answer one `POST /v1/chat/completions`: 400 for bodies the API rejects, otherwise the
 * scripted (or echoed) reply with `usage.prompt_tokens_details.cached_tokens` from Cachet's
 * OpenAI cache model at `at`. Streams include usage only with `stream_options.include_usage`.
 */
export function answerChat(
  state: EmulatorState,
  body: unknown,
  at: number,
  cache: CacheModel = state.openaiCache,
): EmulatorResponse {
  const problem = validateChatBody(body);
  if (problem) return openAIError(400, 'invalid_request_error', problem);
  const request = body as JsonRecord;
  const judged = judge(state, request, at, lastChatUserText(request.messages as JsonRecord[]), cache);
  if ('type' in judged) return judged;
  const { verdict, reply, outputTokens, created } = judged;
  const id = state.nextId('chatcmpl-emu-');
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: state.nextId('call_emu_'),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = {
    prompt_tokens: verdict.inputTokens,
    completion_tokens: outputTokens,
    total_tokens: verdict.inputTokens + outputTokens,
    prompt_tokens_details: {
      cached_tokens: verdict.cacheReadTokens,
      audio_tokens: 0,
      // OpenRouter reports writes on routes that bill them (Anthropic's).
      ...(verdict.cacheWriteTokens > 0 ? { cache_write_tokens: verdict.cacheWriteTokens } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  const base = { id, created, model: request.model, system_fingerprint: 'fp_cachet_emulator' };
  if (request.stream !== true) {
    const message = {
      role: 'assistant',
      content: reply.text ?? null,
      refusal: null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    return {
      type: 'json-value',
      body: {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        usage,
        service_tier: 'default',
      },
    };
  }
  const chunk = (delta: JsonRecord, finish: string | null = null) =>
    sseEvent({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (reply.text !== undefined) chunks.push(chunk({ content: reply.text }));
  toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }),
    );
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  chunks.push(chunk({}, finishReason));
  const streamOptions = isRecord(request.stream_options) ? request.stream_options : {};
  if (streamOptions.include_usage === true) {
    chunks.push(sseEvent({ ...base, object: 'chat.completion.chunk', choices: [], usage }));
  }
  chunks.push(sseEvent('[DONE]'));
  return { type: 'stream-chunks', chunks };
}

/**
 * Answer one `POST /v1/responses`: the reply as output items with
 * `usage.input_tokens_details.cached_tokens` from the OpenAI cache model, streamed as the
 * documented `response.*` events or as one JSON. Responses are stored unless `store: false`;
 * `previous_response_id` continues a stored one: its input and output come before this
 * request's input (instructions are not carried over, as documented), and the cache model
 * judges that whole input, so usage is what a client sending everything would get. An unknown,
 * unstored or forgotten id answers 400 `previous_response_not_found`.
 */
export function answerResponses(state: EmulatorState, body: unknown, at: number): EmulatorResponse {
  const fields = isRecord(body) ? body : {};
  const previousId = fields.previous_response_id ?? null;
  if (previousId !== null && typeof previousId !== 'string') {
    return invalidParameter("Invalid type for 'previous_response_id': expected a string.", 'previous_response_id');
  }
  if (fields.store !== undefined && typeof fields.store !== 'boolean') {
    return invalidParameter("Invalid type for 'store': expected a boolean.", 'store');
  }
  const continued = continuedBody(state, body);
  if (previousId !== null && isRecord(body) && !continued) {
    return openAIError(
      400,
      'invalid_request_error',
      `Previous response with id '${previousId}' not found.`,
      'previous_response_not_found',
      'previous_response_id',
    );
  }
  const problem = validateResponsesBody(continued ?? body);
  if (problem) return openAIError(400, 'invalid_request_error', problem);
  const sent = body as JsonRecord;
  const request = continued ?? sent;
  const judged = judge(state, request, at, lastResponsesUserText(request.input));
  if ('type' in judged) return judged;
  const { verdict, reply, outputTokens, created } = judged;
  const id = state.nextId('resp_emu_');
  const output: JsonRecord[] = [];
  if (reply.text !== undefined) {
    output.push({
      type: 'message',
      id: state.nextId('msg_emu_'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of reply.toolCalls ?? []) {
    output.push({
      type: 'function_call',
      id: state.nextId('fc_emu_'),
      call_id: state.nextId('call_emu_'),
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: 'completed',
    });
  }
  const usage = {
    input_tokens: verdict.inputTokens,
    input_tokens_details: {
      cached_tokens: verdict.cacheReadTokens,
      ...(verdict.cacheWriteTokens > 0 ? { cache_write_tokens: verdict.cacheWriteTokens } : {}),
    },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: verdict.inputTokens + outputTokens,
  };
  if (sent.store !== false) state.storeResponse(id, [...inputItems(request.input), ...output]);
  const response = {
    id,
    object: 'response',
    created_at: created,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    model: request.model,
    previous_response_id: sent.previous_response_id ?? null,
    output,
    parallel_tool_calls: true,
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    prompt_cache_key: request.prompt_cache_key ?? null,
    usage,
  };
  if (request.stream !== true) return { type: 'json-value', body: response };
  let sequence = 0;
  const event = (type: string, fields: JsonRecord) => sseEvent({ type, sequence_number: sequence++, ...fields }, type);
  const chunks = [
    event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }),
    event('response.in_progress', { response: { ...response, status: 'in_progress', output: [], usage: null } }),
  ];
  output.forEach((item, outputIndex) => {
    if (item.type === 'message') {
      const text = String(((item.content as JsonRecord[])[0] as JsonRecord).text);
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      chunks.push(
        event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } }),
      );
      chunks.push(event('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part }));
      chunks.push(
        event('response.output_text.delta', {
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          delta: text,
          logprobs: [],
        }),
      );
      chunks.push(
        event('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text, logprobs: [] }),
      );
      chunks.push(
        event('response.content_part.done', {
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          part: { ...part, text },
        }),
      );
    } else {
      chunks.push(
        event('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', arguments: '' },
        }),
      );
      chunks.push(
        event('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: item.arguments }),
      );
      chunks.push(
        event('response.function_call_arguments.done', {
          item_id: item.id,
          output_index: outputIndex,
          arguments: item.arguments,
        }),
      );
    }
    chunks.push(event('response.output_item.done', { output_index: outputIndex, item }));
  });
  chunks.push(event('response.completed', { response }));
  return { type: 'stream-chunks', chunks };
}

function invalidParameter(message: string, param: string): EmulatorResponse {
  return openAIError(400, 'invalid_request_error', message, null, param);
}

/** A Responses `input` as a list of items (a string is one user message). */
function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * The body the model reads for a request continuing a stored response: the stored items, then
 * this request's input; everything else (instructions, tools, cache key) from this request. Null
 * when the body names no `previous_response_id` or one that is not stored.
 */
function continuedBody(state: EmulatorState, body: unknown): JsonRecord | null {
  if (!isRecord(body) || typeof body.previous_response_id !== 'string') return null;
  const earlier = state.storedResponse(body.previous_response_id);
  if (!earlier) return null;
  const { previous_response_id: _previous, ...rest } = body;
  return { ...rest, input: [...earlier, ...inputItems(body.input)] };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is JsonRecord => isRecord(part) && typeof part.text === 'string')
    .map((part) => String(part.text))
    .join(' ');
}

function lastChatUserText(messages: JsonRecord[]): string {
  return textOf(messages.findLast((message) => message.role === 'user')?.content);
}

function lastResponsesUserText(input: unknown): string {
  if (typeof input === 'string') return input;
  const items = Array.isArray(input) ? (input as unknown[]).filter(isRecord) : [];
  return textOf(items.findLast((item) => item.role === 'user')?.content);
}
