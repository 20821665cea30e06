import type { Response } from 'openai/resources/responses/responses';
import type { AssistantContentBlock, Message } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import { parseArguments } from '../openai-chat/messages-from-reply.js';

/**
 * Cachet messages from a Responses API reply (`await client.responses.create(body)`), ready for
 * `session.append`: output text (and refusals) of `message` items and `function_call` items as
 * tool calls (the `call_id` is the id the tool result must carry). Reasoning items are not
 * kept here (the Responses adapter replays them by id); other item types are refused.
 *
 * @example
 * const response = await new OpenAI().responses.create(body);
 * for (const message of messagesFromOpenAIResponses(response)) session.append(message);
 */
export function messagesFromOpenAIResponses(response: Pick<Response, 'output'>): Message[] {
  if (typeof response !== 'object' || response === null || !Array.isArray(response.output)) {
    throw new ValidationError('response.output', 'a Responses API reply with an output array');
  }
  const content: AssistantContentBlock[] = [];
  response.output.forEach((item, index) => {
    const path = `response.output[${index}]`;
    switch (item.type) {
      case 'message':
        for (const part of item.content) {
          const text = part.type === 'output_text' ? part.text : part.refusal;
          if (text !== '') content.push({ type: 'text', text });
        }
        return;
      case 'function_call':
        content.push({
          type: 'tool_use',
          id: item.call_id,
          name: item.name,
          input: parseArguments(item.arguments, `${path}.arguments`),
        });
        return;
      case 'reasoning':
        return;
      default:
        throw new ValidationError(`${path}.type`, 'message, function_call or reasoning', `got ${item.type}`);
    }
  });
  return content.length > 0 ? [{ role: 'assistant', content }] : [];
}
