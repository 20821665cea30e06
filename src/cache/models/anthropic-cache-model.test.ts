import { describe, expect, it } from 'vitest';
import { anthropicBody, wordCounter, words } from '../test-support/fixtures.js';
import { createAnthropicCacheModel } from './anthropic-cache-model.js';

const MINUTE = 60_000;

function model(minimumPrefixTokens?: number) {
  return createAnthropicCacheModel({ counter: wordCounter, ...(minimumPrefixTokens ? { minimumPrefixTokens } : {}) });
}

describe('Anthropic cache model', () => {
  it('writes at a breakpoint, then reads it on the next request at 0.1× while the rest is uncached', () => {
    const cache = model();
    const first = cache.judge(anthropicBody({ systemTokens: 2000, turns: [words(10, 'q')] }), { at: 0 });
    expect(first).toMatchObject({ inputTokens: 2010, cacheReadTokens: 0, cacheWrite5mTokens: 2000, uncachedTokens: 10 });
    const second = cache.judge(anthropicBody({ systemTokens: 2000, turns: [words(10, 'q'), words(5, 'a'), words(7, 'r')] }), {
      at: MINUTE,
    });
    expect(second).toMatchObject({ inputTokens: 2022, cacheReadTokens: 2000, cacheWriteTokens: 0, uncachedTokens: 22 });
    expect(second.readFrom?.path).toBe('system[0]');
    expect(second.explanation.join(' ')).toContain('Read 2,000 tokens');
  });

  it('an entry is readable only by later requests, never by the request that writes it', () => {
    const cache = model();
    const verdict = cache.judge(anthropicBody({ turns: ['hello'] }), { at: 0 });
    expect(verdict.cacheReadTokens).toBe(0);
    expect(verdict.cacheWriteTokens).toBe(2000);
  });

  it('does not cache a prefix below the model minimum (both cache fields 0)', () => {
    const cache = model();
    const body = anthropicBody({ model: 'claude-haiku-4-5', systemTokens: 3000, turns: ['hi'] });
    const first = cache.judge(body, { at: 0 });
    const second = cache.judge(body, { at: MINUTE });
    for (const verdict of [first, second]) {
      expect(verdict.cacheReadTokens).toBe(0);
      expect(verdict.cacheWriteTokens).toBe(0);
      expect(verdict.uncachedTokens).toBe(3001);
    }
    expect(first.explanation.join(' ')).toMatch(/below the 4,096-token minimum/);
    // Nothing was ever cached, so nothing was lost: not a break.
    expect(second.missCause).toBeNull();
    // The same prefix clears Sonnet 4.5's 1,024-token floor.
    expect(model().judge({ ...body, model: 'claude-sonnet-4-5' }, { at: 0 }).cacheWriteTokens).toBe(3000);
  });

  it('5-minute entries expire 5 minutes after the request that wrote or last read them', () => {
    const cache = model();
    const body = anthropicBody({ turns: ['hi'] });
    cache.judge(body, { at: 0 });
    expect(cache.judge(body, { at: 4 * MINUTE }).cacheReadTokens).toBe(2000); // refreshes to 9 min
    expect(cache.judge(body, { at: 8 * MINUTE }).cacheReadTokens).toBe(2000); // alive only thanks to the refresh
    const late = cache.judge(body, { at: 14 * MINUTE });
    expect(late.cacheReadTokens).toBe(0);
    expect(late.cacheWrite5mTokens).toBe(2000);
    expect(late.missCause).toBe('ttl-expired');
  });

  it('1-hour entries survive gaps that expire 5-minute ones and are billed as 1h writes', () => {
    const short = model();
    const long = model();
    const body5m = anthropicBody({ turns: ['hi'], systemBreakpoint: '5m' });
    const body1h = anthropicBody({ turns: ['hi'], systemBreakpoint: '1h' });
    short.judge(body5m, { at: 0 });
    const written = long.judge(body1h, { at: 0 });
    expect(written).toMatchObject({ cacheWrite1hTokens: 2000, cacheWrite5mTokens: 0 });
    expect(short.judge(body5m, { at: 30 * MINUTE }).cacheReadTokens).toBe(0);
    expect(long.judge(body1h, { at: 30 * MINUTE }).cacheReadTokens).toBe(2000);
    expect(long.judge(body1h, { at: 91 * MINUTE }).cacheReadTokens).toBe(0);
  });

  it('splits writes by TTL when a 1h breakpoint precedes a 5m one', () => {
    const body = anthropicBody({ turns: [words(300, 'q')], systemBreakpoint: '1h', lastBreakpoint: '5m' });
    const verdict = model().judge(body, { at: 0 });
    expect(verdict).toMatchObject({ cacheWrite1hTokens: 2000, cacheWrite5mTokens: 300, uncachedTokens: 0 });
  });

  it('rejects a 1h breakpoint after a 5m one, and more than four breakpoints', () => {
    const misordered = anthropicBody({ turns: ['hi'], systemBreakpoint: '5m', lastBreakpoint: '1h' });
    expect(model().judge(misordered, { at: 0 }).rejected).toMatch(/1-hour breakpoint follows a 5-minute one/);
    const turns = Array.from({ length: 5 }, (_, index) => `turn ${index}`);
    const many = anthropicBody({ turns, systemBreakpoint: '5m' });
    (many.messages as Array<{ content: Array<Record<string, unknown>> }>).forEach((message) => {
      message.content[0]!.cache_control = { type: 'ephemeral' };
    });
    expect(model().judge(many, { at: 0 }).rejected).toMatch(/6 cache_control breakpoints/);
  });

  it('reads an entry 19 blocks behind the breakpoint but not one 20 blocks behind (lookback of 20 positions)', () => {
    const history = (blocks: number) => Array.from({ length: blocks }, (_, index) => `block ${index} ${words(20, `b${index}x`)}`);
    for (const [added, expectedHit] of [
      [19, true],
      [20, false],
    ] as const) {
      const cache = model();
      cache.judge(anthropicBody({ turns: history(1), lastBreakpoint: '5m', systemBreakpoint: null }), { at: 0 });
      const later = cache.judge(anthropicBody({ turns: history(1 + added), lastBreakpoint: '5m', systemBreakpoint: null }), {
        at: MINUTE,
      });
      if (expectedHit) {
        expect(later.readFrom?.path).toBe('messages[0].content[0]');
        expect(later.missCause).toBeNull();
      } else {
        expect(later.cacheReadTokens).toBe(0);
        expect(later.missCause).toBe('lookback-exceeded');
        expect(later.explanation.join(' ')).toMatch(/20 blocks before the nearest breakpoint/);
      }
    }
  });

  it('a second breakpoint near the old entry rescues a long turn', () => {
    const history = (blocks: number) => Array.from({ length: blocks }, (_, index) => `block ${index} ${words(20, `b${index}x`)}`);
    const cache = model();
    cache.judge(anthropicBody({ turns: history(1), lastBreakpoint: '5m', systemBreakpoint: null }), { at: 0 });
    const body = anthropicBody({ turns: history(30), lastBreakpoint: '5m', systemBreakpoint: null });
    (body.messages as Array<{ content: Array<Record<string, unknown>> }>)[10]!.content[0]!.cache_control = { type: 'ephemeral' };
    expect(cache.judge(body, { at: MINUTE }).readFrom?.path).toBe('messages[0].content[0]');
  });

  it('invalidates by level: a tools change re-bills everything, a tool_choice change only messages', () => {
    const tool = (name: string) => ({ name, description: words(50, name), input_schema: { type: 'object' } });
    const build = (tools: string[], extra: Record<string, unknown> = {}) =>
      anthropicBody({ tools: tools.map(tool), turns: [words(1500, 'h'), 'ok', 'next'], lastBreakpoint: '5m', extra });
    const first = model();
    const base = first.judge(build(['a', 'b']), { at: 0 });
    expect(base.cacheWriteTokens).toBe(base.inputTokens);
    const toolsChanged = first.judge(build(['a', 'c']), { at: MINUTE });
    expect(toolsChanged.cacheReadTokens).toBe(0);
    expect(toolsChanged.missCause).toBe('tools-changed');

    const second = model();
    second.judge(build(['a', 'b']), { at: 0 });
    const choice = second.judge(build(['a', 'b'], { tool_choice: { type: 'any' } }), { at: MINUTE });
    // The system breakpoint's entry (tools + system) is still read; the messages entry is not.
    expect(choice.readFrom?.path).toBe('system[0]');
    expect(choice.missCause).toBe('params-changed');

    const third = model();
    third.judge(build(['a', 'b']), { at: 0 });
    const thinking = third.judge(build(['a', 'b'], { thinking: { type: 'enabled', budget_tokens: 2048 } }), { at: MINUTE });
    expect(thinking.readFrom?.path).toBe('system[0]');
  });

  it('adding the first image invalidates the messages level only', () => {
    const cache = model();
    const body = anthropicBody({ turns: [words(1500, 'h'), 'ok', 'look'], lastBreakpoint: '5m' });
    cache.judge(body, { at: 0 });
    const withImage = structuredClone(body) as { messages: Array<{ content: unknown[] }> };
    withImage.messages[2]!.content.unshift({ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } });
    const verdict = cache.judge(withImage, { at: MINUTE });
    expect(verdict.readFrom?.path).toBe('system[0]');
  });

  it('a model switch re-bills everything', () => {
    const cache = model();
    cache.judge(anthropicBody({ turns: ['hi'] }), { at: 0 });
    const switched = cache.judge(anthropicBody({ turns: ['hi'], model: 'claude-opus-4-8' }), { at: MINUTE });
    expect(switched.cacheReadTokens).toBe(0);
    expect(switched.missCause).toBe('model-changed');
  });

  it('top-level automatic cache_control marks the last block and moves with the conversation', () => {
    const cache = model();
    const turns = [words(1200, 'h')];
    const first = cache.judge(anthropicBody({ turns, systemBreakpoint: null, extra: { cache_control: { type: 'ephemeral' } } }), {
      at: 0,
    });
    expect(first.cacheWriteTokens).toBe(3200);
    const second = cache.judge(
      anthropicBody({ turns: [...turns, 'ok', 'more'], systemBreakpoint: null, extra: { cache_control: { type: 'ephemeral' } } }),
      {
        at: MINUTE,
      },
    );
    expect(second).toMatchObject({ cacheReadTokens: 3200, cacheWrite5mTokens: 2 });
  });

  it('says its counts are estimates with the default counter', () => {
    const verdict = createAnthropicCacheModel().judge(anthropicBody({ turns: ['hi'] }), { at: 0 });
    expect(verdict.tokensEstimated).toBe(true);
    expect(verdict.explanation.join(' ')).toMatch(/estimates/);
  });

  it('a fork holds a copy of the state: the same bodies get the same verdicts, and neither sees what the other writes', () => {
    const original = model();
    const turns = (count: number) => Array.from({ length: count }, (_, index) => words(300, `t${index}`));
    const body = (count: number) => anthropicBody({ turns: turns(count), lastBreakpoint: '5m' });
    original.judge(body(1), { at: 0 });
    original.judge(body(3), { at: MINUTE });
    const copy = original.fork!();
    for (const [count, at] of [
      [5, 2 * MINUTE],
      [7, 9 * MINUTE],
    ] as const) {
      expect(copy.judge(body(count), { at })).toEqual(original.judge(body(count), { at }));
    }
    // Only the copy writes the 9-turn prefix (and refreshes the entries it reads).
    expect(copy.judge(body(9), { at: 10 * MINUTE }).cacheWrite5mTokens).toBeGreaterThan(0);
    const onCopy = copy.judge(body(9), { at: 14 * MINUTE });
    const onOriginal = original.judge(body(9), { at: 14 * MINUTE });
    expect(onCopy.cacheReadTokens).toBe(2000 + 9 * 300);
    expect(onOriginal.cacheReadTokens).toBe(0);
    expect(onOriginal.missCause).toBe('ttl-expired');
  });
});
