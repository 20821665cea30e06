import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import { canonicalJson } from '../../model/canonical-json.js';
import type { AssistantContentBlock, Message, TextBlock, ToolResultBlock } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import type { JsonObject } from '../../model/json.js';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];
type ToolPart = ToolModelMessage['content'][number];

/**
 * Cachet messages from the AI SDK's `response.messages`, ready for `session.append`: assistant
 * text, tool calls (`tool_use`, input as given), reasoning with an Anthropic signature (`thinking`)
 * or redacted data (`redacted_thinking`); `tool` messages become a user message of `tool_result`
 * blocks. Reasoning without a signature is kept unsigned (the Anthropic adapter drops it with a
 * warning). Empty text parts are skipped; provider-executed tool calls and other parts are refused.
 *
 * @example
 * const result = await generateText({ model, ...toAiSdkCall(assemble(session), { provider: 'anthropic' }) });
 * for (const message of messagesFromAiSdk(result.response.messages)) session.append(message);
 */
export function messagesFromAiSdk(messages: readonly ModelMessage[]): Message[] {
  const converted: Message[] = [];
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'assistant': {
        const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const content = parts.flatMap((part, partIndex) => assistantBlocks(part, `${path}.content[${partIndex}]`));
        if (content.length > 0) converted.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const content = message.content.flatMap((part, partIndex) => toolResultBlocks(part, `${path}.content[${partIndex}]`));
        if (content.length > 0) converted.push({ role: 'user', content });
        break;
      }
      case 'user': {
        const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const content = parts.map((part, partIndex): TextBlock => {
          if (part.type !== 'text') throw new ValidationError(`${path}.content[${partIndex}].type`, 'text', `got ${part.type}`);
          return { type: 'text', text: part.text };
        });
        converted.push({ role: 'user', content });
        break;
      }
      case 'system':
        throw new ValidationError(`${path}.role`, 'assistant, tool or user (system text belongs in the session zones)');
      default:
        throw new ValidationError(`${path}.role`, 'assistant, tool or user');
    }
  });
  return converted;
}

function assistantBlocks(part: AssistantPart, path: string): AssistantContentBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'tool-call':
      if (part.providerExecuted) throw new ValidationError(`${path}.providerExecuted`, 'a client-executed tool call');
      return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: objectInput(part.input, `${path}.input`) }];
    case 'reasoning': {
      const anthropic = part.providerOptions?.anthropic;
      const redacted = anthropic?.redactedData;
      if (typeof redacted === 'string') return [{ type: 'redacted_thinking', data: redacted }];
      const signature = anthropic?.signature;
      return [
        typeof signature === 'string'
          ? { type: 'thinking', thinking: part.text, signature }
          : { type: 'thinking', thinking: part.text },
      ];
    }
    default:
      throw new ValidationError(`${path}.type`, 'text, tool-call or reasoning', `got ${part.type}`);
  }
}

function toolResultBlocks(part: ToolPart, path: string): ToolResultBlock[] {
  if (part.type !== 'tool-result') return [];
  const output = part.output;
  const block: ToolResultBlock = { type: 'tool_result', toolUseId: part.toolCallId, content: [] };
  switch (output.type) {
    case 'text':
    case 'error-text':
      block.content = [{ type: 'text', text: output.value }];
      break;
    case 'json':
    case 'error-json':
      block.content = [{ type: 'text', text: canonicalJson(output.value as never) }];
      break;
    case 'execution-denied':
      block.content = [{ type: 'text', text: output.reason ?? 'Tool call execution denied.' }];
      block.isError = true;
      break;
    case 'content':
      block.content = output.value.map((inner, index) => {
        if (inner.type === 'text') return { type: 'text', text: inner.text };
        if (inner.type === 'image-data')
          return { type: 'image', source: { kind: 'base64', mediaType: inner.mediaType, data: inner.data } };
        if (inner.type === 'image-url') return { type: 'image', source: { kind: 'url', url: inner.url } };
        throw new ValidationError(`${path}.output.value[${index}].type`, 'text, image-data or image-url', `got ${inner.type}`);
      });
      break;
    default:
      throw new ValidationError(`${path}.output.type`, 'a tool output Cachet can store');
  }
  if (output.type === 'error-text' || output.type === 'error-json') block.isError = true;
  return [block];
}

function objectInput(input: unknown, path: string): JsonObject {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError(path, 'a JSON object');
  return input as JsonObject;
}
