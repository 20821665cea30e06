import type { JSONValue, ModelMessage, SystemModelMessage, ToolChoice, ToolResultPart, ToolSet } from 'ai';
import { jsonSchema, tool } from 'ai';
import { ValidationError } from '../../model/errors.js';
import type { ChatMessage, ChatPart } from '../../providers/openai-chat/chat-messages.js';
import type { OpenAIChatBody } from '../../providers/openai-chat/convert-request.js';
import type { AiSdkCall } from './ai-sdk-types.js';

type TextOrFile = { type: 'text'; text: string } | { type: 'file'; data: URL | string; mediaType: string };

/**
 * Rewrite a Chat Completions body built by Cachet's OpenAI adapter as AI SDK call options: the
 * same message order (system segments one message each, history, the turn tail where the adapter
 * put it: merged into the user's message, or a trailing system message in a tool loop), tools in
 * order with canonical schemas, and `prompt_cache_key` / `prompt_cache_retention` as
 * `providerOptions.openai.promptCacheKey` / `promptCacheRetention`.
 */
export function openAIBodyToAiSdk(body: OpenAIChatBody): AiSdkCall {
  const toolNames = new Map<string, string>();
  const messages: ModelMessage[] = [];
  (body.messages as ChatMessage[]).forEach((message, index) => {
    messages.push(...convertMessage(message, `body.messages[${index}]`, toolNames));
  });
  const openai: Record<string, JSONValue> = {};
  if (body.prompt_cache_key) openai.promptCacheKey = body.prompt_cache_key;
  if (body.prompt_cache_retention) openai.promptCacheRetention = body.prompt_cache_retention;
  if (body.parallel_tool_calls === false) openai.parallelToolCalls = false;
  if (body.reasoning_effort) openai.reasoningEffort = body.reasoning_effort;

  // Leading system messages (the system segments) go to `system`; a later one is the tail.
  const leading = messages.findIndex((message) => message.role !== 'system');
  const systemCount = leading === -1 ? messages.length : leading;
  const system = messages.slice(0, systemCount) as SystemModelMessage[];
  const rest = messages.slice(systemCount);
  const call: AiSdkCall = {
    messages: rest,
    providerOptions: Object.keys(openai).length > 0 ? { openai } : {},
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? 0,
  };
  if (system.length > 0) call.system = system;
  if (rest.some((message) => message.role === 'system')) call.allowSystemInMessages = true;
  if (body.tools && body.tools.length > 0) {
    const tools: ToolSet = {};
    for (const wire of body.tools) {
      if (wire.type !== 'function') continue;
      tools[wire.function.name] = tool({
        ...(wire.function.description !== undefined ? { description: wire.function.description } : {}),
        inputSchema: jsonSchema((wire.function.parameters ?? { type: 'object' }) as Parameters<typeof jsonSchema>[0]),
      });
    }
    call.tools = tools;
  }
  const toolChoice = convertToolChoice(body.tool_choice);
  if (toolChoice) call.toolChoice = toolChoice;
  if (typeof body.stop === 'string') call.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) call.stopSequences = [...body.stop];
  return call;
}

function convertToolChoice(choice: OpenAIChatBody['tool_choice']): ToolChoice<ToolSet> | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto' || choice === 'none') return choice;
  if (choice === 'required') return 'required';
  if (typeof choice === 'object' && choice.type === 'function') return { type: 'tool', toolName: choice.function.name };
  return undefined;
}

function texts(content: string | Array<{ type: string; text?: string }> | null | undefined): string[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return [content];
  return content.map((part) => part.text ?? '');
}

function convertMessage(message: ChatMessage, path: string, toolNames: Map<string, string>): ModelMessage[] {
  switch (message.role) {
    case 'system':
    case 'developer':
      // One AI SDK system message per segment keeps each segment's bytes apart, as the adapter does.
      return texts(message.content).map((text) => ({ role: 'system', content: text }));
    case 'user': {
      const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
      return [{ role: 'user', content: parts.map((part, index) => userPart(part, `${path}.content[${index}]`)) }];
    }
    case 'assistant': {
      const content: Array<
        { type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
      > = texts(message.content).map((text) => ({ type: 'text', text }));
      for (const call of message.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name);
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.function.name,
          input: JSON.parse(call.function.arguments),
        });
      }
      return [{ role: 'assistant', content }];
    }
    case 'tool': {
      const toolName = toolNames.get(message.tool_call_id);
      if (toolName === undefined) {
        throw new ValidationError(`${path}.tool_call_id`, 'the id of an earlier tool call', `got ${message.tool_call_id}`);
      }
      // The AI SDK's OpenAI providers send `content` outputs as JSON text, so text parts travel as one string.
      const output: ToolResultPart['output'] = { type: 'text', value: texts(message.content).join('') };
      return [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: message.tool_call_id, toolName, output }] }];
    }
    default:
      throw new ValidationError(`${path}.role`, 'system, developer, user, assistant or tool');
  }
}

function userPart(part: ChatPart, path: string): TextOrFile {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image_url') {
    const url = part.image_url.url;
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (data) return { type: 'file', data: data[2] as string, mediaType: data[1] as string };
    return { type: 'file', data: new URL(url), mediaType: 'image/*' };
  }
  throw new ValidationError(`${path}.type`, 'text or image_url', `got ${part.type}`);
}
