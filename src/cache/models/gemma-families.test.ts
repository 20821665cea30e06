import { describe, expect, it } from 'vitest';
import { renderChatTemplate } from '../../providers/openai-compatible/chat-template.js';
import { GEMMA_2_CHAT_TEMPLATE } from '../../providers/openai-compatible/gemma-2-template.js';
import { llamaCppMergedSystemMessage, templateRendersSystemRole } from './llama-cpp-conventions.js';
import { renderLocalEnginePrompt, UnknownChatTemplateError } from './local-engine-cache-model.js';

const body = (model: string) => ({
  model,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: '  Hi  ' },
  ],
});

describe('Gemma 2, 3 and 4 through llama.cpp', () => {
  it('merges a leading system message into the next one, as system_message_not_supported does', () => {
    expect(
      llamaCppMergedSystemMessage([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ]),
    ).toEqual([
      { role: 'user', content: 'Be brief.\nHi' },
      { role: 'assistant', content: 'Hello' },
    ]);
    expect(llamaCppMergedSystemMessage([{ role: 'system', content: 'alone' }])).toEqual([]);
    expect(llamaCppMergedSystemMessage([{ role: 'user', content: 'Hi' }])).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('probes the system role the way caps_get does: Gemma 2 raises, Gemma 3 renders it', () => {
    const gemma2 = (messages: Record<string, unknown>[]) => renderChatTemplate({ messages }, GEMMA_2_CHAT_TEMPLATE, {});
    expect(templateRendersSystemRole(gemma2)).toBe(false);
    expect(templateRendersSystemRole(() => 'System message and User message')).toBe(true);
  });

  it("renders Gemma 2 ids with Gemma 2's own template, the system text merged into the first user turn", () => {
    expect(renderLocalEnginePrompt(body('gemma-2-9b-it'), 0).text).toBe(
      '<bos><start_of_turn>user\nBe brief.\n  Hi<end_of_turn>\n<start_of_turn>model\n',
    );
    // Gemma 3's template takes the system message itself, with a blank line.
    expect(renderLocalEnginePrompt(body('gemma-3-4b-it'), 0).text).toBe(
      '<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n',
    );
  });

  it('asks for the GGUF template and a tokenizer on Gemma 4 (no npm vocabulary carries its special tokens)', () => {
    expect(() => renderLocalEnginePrompt(body('gemma-4-31b-it'), 0)).toThrow(UnknownChatTemplateError);
    expect(() => renderLocalEnginePrompt(body('gemma-4-31b-it'), 0)).toThrow(/family gemma is known/);
  });
});
