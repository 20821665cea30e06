type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/**
 * Check a Chat Completions body as the API does, returning the 400 message it would send or
 * null: required fields, roles, and that every assistant `tool_calls` entry is answered by a
 * `tool` message (and every `tool` message answers one).
 */
export function validateChatBody(body: unknown): string | null {
  if (!isRecord(body)) return 'We could not parse the JSON body of your request.';
  if (typeof body.model !== 'string' || body.model.length === 0) return "Missing required parameter: 'model'.";
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "Invalid 'messages': empty array. Expected an array with minimum length 1.";
  }
  if (body.prompt_cache_key !== undefined && typeof body.prompt_cache_key !== 'string') {
    return "Invalid type for 'prompt_cache_key': expected a string.";
  }
  const messages = body.messages as unknown[];
  let pending: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || typeof message.role !== 'string' || !CHAT_ROLES.has(message.role)) {
      return `Invalid value for 'messages[${index}].role'.`;
    }
    if (message.role === 'tool') {
      const id = String(message.tool_call_id);
      if (!pending.includes(id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
      }
      pending = pending.filter((open) => open !== id);
      continue;
    }
    if (pending.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`;
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      pending = (message.tool_calls as unknown[]).map((call) => String(isRecord(call) ? call.id : ''));
    }
  }
  if (pending.length > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`;
  }
  return null;
}

/** Check a Responses API body: model and input are required; function_call_output must answer a function_call. */
export function validateResponsesBody(body: unknown): string | null {
  if (!isRecord(body)) return 'We could not parse the JSON body of your request.';
  if (typeof body.model !== 'string' || body.model.length === 0) return "Missing required parameter: 'model'.";
  if (typeof body.input === 'string') return null;
  if (!Array.isArray(body.input)) return "Missing required parameter: 'input'.";
  const calls = new Set<string>();
  for (const [index, item] of (body.input as unknown[]).entries()) {
    if (!isRecord(item)) return `Invalid value for 'input[${index}]'.`;
    if (item.type === 'function_call') calls.add(String(item.call_id));
    if (item.type === 'function_call_output' && !calls.has(String(item.call_id))) {
      return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
    }
  }
  return null;
}
