import type { Message as AnthropicMessage } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AssistantContentBlock, Message } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import type { JsonObject } from '../../model/json.js';

/**
 * Cachet messages from a Messages API reply (`await client.messages.create(body)`), ready for
 * `session.append`: text, tool calls, signed thinking (signature kept byte for byte) and
 * redacted thinking. Server tool blocks and other block types are refused with the path named.
 *
 * @example
 * const reply = await new Anthropic().messages.create(body);
 * for (const message of messagesFromAnthropic(reply)) session.append(message);
 */
export function messagesFromAnthropic(reply: Pick<AnthropicMessage, 'content'>): Message[] {
  if (typeof reply !== 'object' || reply === null || !Array.isArray(reply.content)) {
    throw new ValidationError('reply.content', 'a Messages API reply with a content array');
  }
  const content = reply.content.flatMap((block, index): AssistantContentBlock[] => {
    const path = `reply.content[${index}]`;
    switch (block.type) {
      case 'text':
        return block.text === '' ? [] : [{ type: 'text', text: block.text }];
      case 'tool_use':
        return [{ type: 'tool_use', id: block.id, name: block.name, input: objectInput(block.input, `${path}.input`) }];
      case 'thinking':
        return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
      case 'redacted_thinking':
        return [{ type: 'redacted_thinking', data: block.data }];
      default:
        throw new ValidationError(`${path}.type`, 'text, tool_use, thinking or redacted_thinking', `got ${block.type}`);
    }
  });
  return content.length > 0 ? [{ role: 'assistant', content }] : [];
}

function objectInput(input: unknown, path: string): JsonObject {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError(path, 'a JSON object');
  return input as JsonObject;
}
