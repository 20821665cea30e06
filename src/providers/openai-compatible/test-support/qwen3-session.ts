import { canonicalJson } from '../../../model/canonical-json.js';
import type { AssistantMessage, Message } from '../../../model/content.js';
import type { CanonicalRequest } from '../../../model/request.js';
import type { LoadedTokenizer } from '../../../tokens/lenml-tokenizer.js';
import { fixtureSession } from '../../openai-chat/test-support/fixtures.js';
import { renderChatTemplate } from '../chat-template.js';
import { convertToOpenAICompatible, type OpenAICompatibleOptions } from '../convert-request.js';

export function commonPrefixLength(left: readonly number[], right: readonly number[]): number {
  let index = 0;
  while (index < left.length && index < right.length && left[index] === right[index]) index++;
  return index;
}

/** What Qwen3 generates for an assistant message: think block, text, tool calls, end of turn. */
function generatedReply(message: AssistantMessage): string {
  const thinking = message.content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('\n\n');
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
  const calls = message.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [`\n<tool_call>\n{"name": "${block.name}", "arguments": ${canonicalJson(block.input)}}\n</tool_call>`]
      : [],
  );
  return `<think>\n${thinking}\n</think>\n\n${text}${text ? calls.join('') : calls.join('').replace(/^\n/, '')}<|im_end|>`;
}

/** The steps of a session: each request is answered by the assistant message that follows it. */
export const STEPS: Array<{ input: Message; reply: AssistantMessage }> = [
  {
    input: { role: 'user', content: [{ type: 'text', text: 'Check a.ts and find TODOs.' }] },
    reply: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should read a.ts and grep in parallel.' },
        { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 'call_b', name: 'grep', input: { pattern: 'TODO', glob: '*.ts' } },
      ],
    },
  },
  {
    input: {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'call_a', content: [{ type: 'text', text: 'export const a = 1;' }] },
        { type: 'tool_result', toolUseId: 'call_b', content: [{ type: 'text', text: 'b.ts:3: TODO' }] },
      ],
    },
    reply: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The TODO is in b.ts; read it.' },
        { type: 'tool_use', id: 'call_c', name: 'read_file', input: { path: 'b.ts' } },
      ],
    },
  },
  {
    input: {
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'call_c', content: [{ type: 'text', text: '// TODO: handle errors' }] }],
    },
    reply: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Summarise the findings.' },
        { type: 'text', text: 'a.ts is clean; b.ts has one TODO about error handling.' },
      ],
    },
  },
  {
    input: { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
    reply: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Edit b.ts.' },
        { type: 'tool_use', id: 'call_d', name: 'read_file', input: { path: 'b.ts' } },
      ],
    },
  },
  {
    input: { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_d', content: [{ type: 'text', text: 'done' }] }] },
    reply: { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
  },
  {
    input: { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
    reply: { role: 'assistant', content: [{ type: 'text', text: 'You are welcome.' }] },
  },
];

export interface StepPrompt {
  promptTokens: number[];
  /** Tokens of the prompt that come from persisted content (everything before the tail). */
  persistedTokens: number;
  replyText: string;
  promptText: string;
}

/** Run the session, rendering each request the way llama.cpp would before tokenizing. */
export function runSession(tokenizer: LoadedTokenizer, options: OpenAICompatibleOptions): StepPrompt[] {
  const template = tokenizer.chatTemplate!;
  const fixture = fixtureSession('Qwen3-8B-Q4_K_M.gguf');
  const prompts: StepPrompt[] = [];
  for (const step of STEPS) {
    fixture.session.append(step.input);
    const request = fixture.request();
    const body = convertToOpenAICompatible(request, { server: 'llama.cpp', ...options }).body;
    const promptText = renderChatTemplate(body, template, { addGenerationPrompt: true });
    const withoutTail: CanonicalRequest = { ...request, tail: { ...request.tail, items: [] } };
    const persistedText = renderChatTemplate(
      convertToOpenAICompatible(withoutTail, { server: 'llama.cpp', ...options }).body,
      template,
    );
    const promptTokens = tokenizer.encode(promptText);
    prompts.push({
      promptTokens,
      persistedTokens: commonPrefixLength(promptTokens, tokenizer.encode(persistedText)),
      replyText: generatedReply(step.reply),
      promptText,
    });
    fixture.session.append(step.reply);
  }
  return prompts;
}
