import { describe, expect, it } from 'vitest';
import { wordCounter, words } from '../test-support/fixtures.js';
import { createOpenAICacheModel, roundToIncrement } from './openai-cache-model.js';

const MINUTE = 60_000;

function chat(system: string, turns: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: system },
      ...turns.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
    ],
    ...extra,
  };
}

function model(defaultRetention?: 'in_memory' | '24h') {
  return createOpenAICacheModel({ counter: wordCounter, ...(defaultRetention ? { defaultRetention } : {}) });
}

describe('OpenAI cache model', () => {
  it('rounds shared prefixes down to 1,024 + k × 128 tokens', () => {
    expect(roundToIncrement(1_023, 1_024)).toBe(0);
    expect(roundToIncrement(1_024, 1_024)).toBe(1_024);
    expect(roundToIncrement(1_151, 1_024)).toBe(1_024);
    expect(roundToIncrement(1_152, 1_024)).toBe(1_152);
  });

  it('reads the previous prompt in 128-token increments once it reaches 1,024 tokens', () => {
    const cache = model();
    // system: 1,400 words + 3 framing; user "hi": 1 + 3 → 1,407 tokens.
    const first = cache.judge(chat(words(1400), ['hi']), { at: 0 });
    expect(first).toMatchObject({ inputTokens: 1407, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const second = cache.judge(chat(words(1400), ['hi', 'hello', 'again']), { at: MINUTE });
    expect(second.cacheReadTokens).toBe(1280); // 1,407 shared → 1,024 + 2 × 128
    expect(second.missCause).toBeNull();
  });

  it('never caches prompts below 1,024 tokens', () => {
    const cache = model();
    const body = chat(words(1000), ['hi']);
    cache.judge(body, { at: 0 });
    const again = cache.judge(body, { at: MINUTE });
    expect(again.cacheReadTokens).toBe(0);
    // The first request never cleared the minimum: nothing was lost, so it is not a break.
    expect(again.missCause).toBeNull();
  });

  it('reads up to a changed timestamp inside a block (token-level prefix) and names the clock', () => {
    const cache = model();
    cache.judge(chat(`${words(1400)} now 2026-11-21T10:00:00Z`, ['hi']), { at: 0 });
    const next = cache.judge(chat(`${words(1400)} now 2026-11-21T10:05:00Z`, ['hi']), { at: MINUTE });
    // Shared: 1,402 words (the timestamp's common start counts as one) − 1 straddling + 3 framing = 1,404 → 1,280.
    expect(next.cacheReadTokens).toBe(1280);
    const cold = model();
    cold.judge(chat(`now 2026-11-21T10:00:00Z ${words(1400)}`, ['hi']), { at: 0 });
    const broken = cold.judge(chat(`now 2026-11-21T10:05:00Z ${words(1400)}`, ['hi']), { at: MINUTE });
    expect(broken.cacheReadTokens).toBe(0);
    expect(broken.missCause).toBe('clock');
  });

  it('in-memory retention ends after 5 idle minutes; 24h retention keeps the prefix', () => {
    const body = { ...chat(words(2000), ['hi']), prompt_cache_retention: 'in_memory' };
    const memory = model();
    memory.judge(body, { at: 0 });
    const late = memory.judge(body, { at: 6 * MINUTE });
    expect(late.cacheReadTokens).toBe(0);
    expect(late.missCause).toBe('ttl-expired');
    const extended = model();
    const retained = { ...body, prompt_cache_retention: '24h' };
    extended.judge(retained, { at: 0 });
    expect(extended.judge(retained, { at: 6 * 60 * MINUTE }).cacheReadTokens).toBeGreaterThan(1024);
  });

  it('without a retention field follows the model default: 24h on gpt-4.1, in_memory under ZDR or on gpt-4o', () => {
    const body = chat(words(2000), ['hi']);
    const retainedByDefault = model();
    retainedByDefault.judge(body, { at: 0 });
    expect(retainedByDefault.judge(body, { at: 30 * MINUTE }).cacheReadTokens).toBeGreaterThan(1024);
    const zdr = createOpenAICacheModel({ counter: wordCounter, zeroDataRetention: true });
    zdr.judge(body, { at: 0 });
    expect(zdr.judge(body, { at: 30 * MINUTE }).cacheReadTokens).toBe(0);
    const older = model();
    const gpt4o = { ...body, model: 'gpt-4o' };
    older.judge(gpt4o, { at: 0 });
    expect(older.judge(gpt4o, { at: 30 * MINUTE }).cacheReadTokens).toBe(0);
  });

  it('routes by prompt_cache_key: a different key does not share the cache', () => {
    const cache = model();
    cache.judge(chat(words(2000), ['hi'], { prompt_cache_key: 'session-a' }), { at: 0 });
    const other = cache.judge(chat(words(2000), ['hi'], { prompt_cache_key: 'session-b' }), { at: MINUTE });
    expect(other.cacheReadTokens).toBe(0);
    expect(other.missCause).toBe('params-changed');
    expect(
      cache.judge(chat(words(2000), ['hi'], { prompt_cache_key: 'session-a' }), { at: 2 * MINUTE }).cacheReadTokens,
    ).toBeGreaterThan(0);
  });

  it('judges Responses bodies: instructions and input items form the prefix', () => {
    const cache = model();
    const body = (input: unknown[]) => ({ model: 'gpt-5', instructions: words(1500), input });
    cache.judge(body([{ role: 'user', content: 'hi' }]), { at: 0 });
    const next = cache.judge(
      body([
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'text' },
      ]),
      { at: MINUTE },
    );
    expect(next.cacheReadTokens).toBe(1408); // 1,500 + 4 shared → 1,024 + 3 × 128
  });

  it('GPT-5.6+: explicit breakpoints write (billed as writes) and are read exactly, without rounding', () => {
    const cache = model();
    const body = (turns: string[]) => ({
      model: 'gpt-5.6',
      messages: [
        { role: 'system', content: [{ type: 'text', text: words(1500), prompt_cache_breakpoint: { mode: 'explicit' } }] },
        ...turns.map((content) => ({ role: 'user', content })),
      ],
      prompt_cache_options: { mode: 'explicit' },
    });
    const first = cache.judge(body(['hi']), { at: 0 });
    expect(first).toMatchObject({ cacheWrite5mTokens: 1503, cacheReadTokens: 0 });
    const second = cache.judge(body(['hi', 'more']), { at: 20 * MINUTE });
    expect(second).toMatchObject({ cacheReadTokens: 1503, cacheWriteTokens: 0 });
    expect(cache.judge(body(['x']), { at: 55 * MINUTE }).cacheReadTokens).toBe(1503); // refreshed at 20 min, 30-minute TTL
  });

  it('refuses bodies judged by other rules', () => {
    expect(() => model().judge({ model: 'claude-sonnet-4-5', system: 'x', messages: [] }, { at: 0 })).toThrow(/OpenAI/);
  });
});
