/** Wire bodies for the gateway tests: a coding-agent session as each SDK would send it. Not exported from the package. */
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { words } from '../../cache/test-support/fixtures.js';

export const PERSONA = `You are a careful coding agent working in a TypeScript repository. ${words(2500, 'rule')}`;

/** Turn `count` of an Anthropic conversation, with markers as Cachet would place them or none. */
export function anthropicTurn(
  count: number,
  options: { marked?: boolean; conversation?: string; model?: string } = {},
): MessageCreateParamsNonStreaming {
  const marked = options.marked ?? true;
  const conversation = options.conversation ?? 'a';
  const messages: MessageParam[] = [];
  for (let index = 0; index < count; index++) {
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: `[${conversation}] request ${index}: ${words(40, `u${index}`)}` }],
    });
    if (index < count - 1) {
      messages.push({
        role: 'assistant',
        content: [{ type: 'text', text: `[${conversation}] answer ${index}: ${words(60, `a${index}`)}` }],
      });
    }
  }
  if (marked) {
    const last = messages.at(-1)!.content as Array<{ cache_control?: { type: 'ephemeral' } }>;
    last[last.length - 1]!.cache_control = { type: 'ephemeral' };
  }
  return {
    model: options.model ?? 'claude-sonnet-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: PERSONA, ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}) }],
    tools: [
      {
        name: 'read_file',
        description: 'Read a file from the workspace.',
        input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ],
    messages,
  };
}

/** Turn `count` of a Chat Completions conversation. */
export function chatTurn(count: number, conversation = 'a'): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionCreateParamsNonStreaming['messages'] = [{ role: 'system', content: PERSONA }];
  for (let index = 0; index < count; index++) {
    messages.push({ role: 'user', content: `[${conversation}] request ${index}: ${words(40, `u${index}`)}` });
    if (index < count - 1)
      messages.push({ role: 'assistant', content: `[${conversation}] answer ${index}: ${words(60, `a${index}`)}` });
  }
  return { model: 'gpt-4.1', messages, prompt_cache_key: `conversation-${conversation}` };
}
