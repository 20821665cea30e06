import { describe, expect, it } from 'vitest';
import { wordCounter, words } from '../test-support/fixtures.js';
import { createDeepSeekCacheModel } from './deepseek-cache-model.js';

const MINUTE = 60_000;
type Layout = 'tail-ahead-of-user-text' | 'tail-after-user-text' | 'tail-retained' | 'no-tail';

/**
 * The chat bodies of a session of `turns` user turns, with the turn tail (time and recall,
 * different every request) placed by `layout`:
 * - ahead: in the final user message, before the user's text (the generic dialect's default);
 * - after: in the final user message, after the user's text, dropped from history next time;
 * - retained: after the user's text, and kept in history exactly as sent;
 * - none: no tail at all (the best case).
 */
function session(layout: Layout, turns = 6) {
  const system = { role: 'system', content: words(3000, 's') };
  const bodies: Array<Record<string, unknown>> = [];
  const history: Array<Record<string, unknown>> = [];
  for (let turn = 0; turn < turns; turn++) {
    const user = { type: 'text', text: words(200, `u${turn}`) };
    const tail = { type: 'text', text: `now: turn ${turn}; ${words(30, `t${turn}`)}` };
    const final = layout === 'tail-ahead-of-user-text' ? [tail, user] : layout === 'no-tail' ? [user] : [user, tail];
    bodies.push({ model: 'deepseek-chat', messages: [system, ...history, { role: 'user', content: final }] });
    history.push({ role: 'user', content: layout === 'tail-retained' ? [user, tail] : [user] });
    history.push({ role: 'assistant', content: words(150, `a${turn}`) });
  }
  return bodies;
}

function reads(layout: Layout) {
  const model = createDeepSeekCacheModel({ counter: wordCounter });
  return session(layout).map((body, turn) => model.judge(body, { at: turn * MINUTE }));
}

function readShare(layout: Layout): number {
  const verdicts = reads(layout).slice(1);
  return (
    verdicts.reduce((sum, verdict) => sum + verdict.cacheReadTokens, 0) /
    verdicts.reduce((sum, verdict) => sum + verdict.inputTokens, 0)
  );
}

describe('DeepSeek cache model (whole persisted units only)', () => {
  it('follows the documented examples: A+B then A+B+C hits A+B; A+B then A+C misses, and A+D then hits A', () => {
    const model = createDeepSeekCacheModel({ counter: wordCounter });
    const a = { role: 'system', content: words(1000, 'a') };
    const body = (...rest: string[]) => ({
      model: 'deepseek-chat',
      messages: [a, ...rest.map((content) => ({ role: 'user', content }))],
    });
    model.judge(body(words(10, 'b')), { at: 0 });
    expect(model.judge(body(words(10, 'b'), words(10, 'c')), { at: MINUTE }).cacheReadTokens).toBe(1010);
    const fresh = createDeepSeekCacheModel({ counter: wordCounter });
    fresh.judge(body(words(10, 'b')), { at: 0 });
    expect(fresh.judge(body(words(10, 'c')), { at: MINUTE }).cacheReadTokens).toBe(0);
    expect(fresh.judge(body(words(10, 'd')), { at: 2 * MINUTE }).cacheReadTokens).toBe(1000);
  });

  it('a retained tail lets every request read the whole previous request and its reply', () => {
    const verdicts = reads('tail-retained');
    for (const verdict of verdicts.slice(1)) {
      // Everything but the new user message (200 words) and its tail (33 words) was in the previous request or its reply.
      expect(verdict.inputTokens - verdict.cacheReadTokens).toBe(233);
      expect(verdict.explanation[0]).toMatch(/end of output unit/);
    }
  });

  it("a tail dropped from history defeats the previous request's units; after the user text, common-prefix units still end right before it", () => {
    const after = reads('tail-after-user-text');
    // Request #1 finds no whole unit (the first request's units both end after its tail).
    expect(after[1]!.cacheReadTokens).toBe(0);
    // From #2 on it reads the common-prefix unit that #1 detected: system + history up to the user text of two turns back.
    expect(after[2]!.cacheReadTokens).toBe(3000 + 200);
    expect(after[2]!.explanation[0]).toMatch(/common prefix unit/);
    const ahead = reads('tail-ahead-of-user-text');
    // Ahead of the user text, the shared prefix ends one message earlier.
    expect(ahead[2]!.cacheReadTokens).toBe(3000);
  });

  it('thinking mode: a reply without tool calls leaves no readable end-of-output unit; a tool-call reply does', () => {
    const system = { role: 'system', content: words(1000, 's') };
    const question = { role: 'user', content: words(50, 'q') };
    const answer = { role: 'assistant', content: words(40, 'a') };
    const call = {
      role: 'assistant',
      content: null,
      reasoning_content: 'look it up',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
    };
    const result = { role: 'tool', tool_call_id: 'c1', content: words(30, 'r') };
    const next = { role: 'user', content: words(20, 'n') };
    const readAfter = (model: string, reply: Record<string, unknown>, follow: Record<string, unknown>, thinking?: string) => {
      const cache = createDeepSeekCacheModel({ counter: wordCounter });
      const extra = thinking ? { thinking: { type: thinking } } : {};
      cache.judge({ model, messages: [system, question], ...extra }, { at: 0 });
      return cache.judge({ model, messages: [system, question, reply, follow], ...extra }, { at: MINUTE });
    };
    // deepseek-chat does not think: the whole first request and its answer are read.
    expect(readAfter('deepseek-chat', answer, next).cacheReadTokens).toBe(1000 + 50 + 40);
    // deepseek-reasoner thinks: the answer's unit held reasoning the next request drops; only the input unit is read.
    const thinking = readAfter('deepseek-reasoner', answer, next);
    expect(thinking.cacheReadTokens).toBe(1000 + 50);
    expect(thinking.explanation.join(' ')).toMatch(/thinking mode/);
    // The body's own switch wins over the model's default.
    expect(readAfter('deepseek-reasoner', answer, next, 'disabled').cacheReadTokens).toBe(1000 + 50 + 40);
    expect(readAfter('deepseek-chat', answer, next, 'enabled').cacheReadTokens).toBe(1000 + 50);
    // A tool-call turn's reasoning is sent back in every later request: its end-of-output unit is read.
    expect(readAfter('deepseek-reasoner', call, result).cacheReadTokens).toBeGreaterThan(1000 + 50);
  });

  it('ranks the layouts: no tail = retained > tail after the user text > tail ahead of it', () => {
    const shares = {
      none: readShare('no-tail'),
      retained: readShare('tail-retained'),
      after: readShare('tail-after-user-text'),
      ahead: readShare('tail-ahead-of-user-text'),
    };
    expect(shares.retained).toBeGreaterThan(shares.after);
    expect(shares.after).toBeGreaterThan(shares.ahead);
    expect(shares.none).toBeGreaterThanOrEqual(shares.retained - 0.02);
    expect(
      Object.fromEntries(Object.entries(shares).map(([key, value]) => [key, Math.round(value * 1000) / 10])),
    ).toMatchInlineSnapshot(`
      {
        "after": 69.6,
        "ahead": 65.8,
        "none": 95.3,
        "retained": 94.7,
      }
    `);
  });
});
