import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AssistantContentBlock, Message } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import type { JsonObject } from '../../model/json.js';

/**
 * Cachet messages from a Chat Completions reply (`await client.chat.completions.create(body)`),
 * ready for `session.append`: the first choice's text and function tool calls (arguments parsed
 * from their JSON text). A refusal is kept as text; custom tool calls are refused.
 *
 * @example
 * const completion = await new OpenAI().chat.completions.create(body);
 * for (const message of messagesFromOpenAIChat(completion)) session.append(message);
 */
export function messagesFromOpenAIChat(completion: Pick<ChatCompletion, 'choices'>): Message[] {
  const choice = completion?.choices?.[0];
  if (!choice) throw new ValidationError('completion.choices[0]', 'a choice');
  const message = choice.message;
  const content: AssistantContentBlock[] = [];
  const text = message.content ?? message.refusal ?? '';
  if (text !== '') content.push({ type: 'text', text });
  (message.tool_calls ?? []).forEach((call, index) => {
    const path = `completion.choices[0].message.tool_calls[${index}]`;
    if (call.type !== 'function') throw new ValidationError(`${path}.type`, 'function', `got ${call.type}`);
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments, `${path}.function.arguments`),
    });
  });
  return content.length > 0 ? [{ role: 'assistant', content }] : [];
}

export function parseArguments(text: string, path: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ValidationError(path, 'JSON object text', `got ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ValidationError(path, 'a JSON object');
  return parsed as JsonObject;
}
