import { describe, expect, it } from 'vitest';
import { fixtureSession } from '../../providers/anthropic/test-support/fixtures.js';
import { convertToGemini } from '../../providers/gemini/convert-request.js';
import { assemble } from '../../session/assemble.js';
import { wordCounter, words } from '../test-support/fixtures.js';
import { createGeminiCacheModel } from './gemini-cache-model.js';

const MINUTE = 60_000;

function growing(model: string, personaWords: number) {
  const session = fixtureSession({ model, tail: [], globalSystem: [{ label: 'persona', text: words(personaWords, 'p') }] });
  let turn = 0;
  return (explicit?: { name: string; staticHash: string; messageCount: number }) => {
    if (turn > 0) session.append({ role: 'assistant', content: [{ type: 'text', text: words(40, `a${turn}`) }] });
    session.appendUserText(words(60, `u${turn}`));
    turn += 1;
    const request = assemble(session);
    return { request, body: convertToGemini(request, explicit ? { explicitCache: explicit } : {}).body };
  };
}

describe('Gemini cache model', () => {
  it('implicit: reads the prefix shared with the previous request, writes nothing', () => {
    const next = growing('gemini-2.5-flash', 2000);
    const model = createGeminiCacheModel({ counter: wordCounter });
    const first = model.judge(next().body, { at: 0 });
    expect(first).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
    const second = model.judge(next().body, { at: MINUTE });
    expect(second.cacheReadTokens).toBe(first.inputTokens);
    expect(second.cacheWriteTokens).toBe(0);
    expect(second.explanation[0]).toMatch(/does not guarantee/);
  });

  it('implicit: nothing below the model minimum (Gemini 3.1 Pro: 4,096)', () => {
    const next = growing('gemini-3.1-pro', 2000);
    const model = createGeminiCacheModel({ counter: wordCounter });
    model.judge(next().body, { at: 0 });
    const second = model.judge(next().body, { at: MINUTE });
    expect(second.cacheReadTokens).toBe(0);
    expect(second.explanation[0]).toMatch(/below the 4,096-token minimum/);
  });

  it('explicit: a body that names a cache reads all of it, the cache counted as input', () => {
    const next = growing('gemini-2.5-pro', 2000);
    const { request } = next();
    const staticHash = convertToGemini(request).metadata.staticHash;
    const body = convertToGemini(request, { explicitCache: { name: 'cachedContents/s1', staticHash, messageCount: 0 } }).body;
    const model = createGeminiCacheModel({ counter: wordCounter, explicitCaches: new Map([['cachedContents/s1', 5000]]) });
    const verdict = model.judge(body, { at: 0 });
    expect(verdict.cacheReadTokens).toBe(5000);
    expect(verdict.uncachedTokens).toBe(verdict.inputTokens - 5000);
  });

  it('implicit entries expire after the planned idle lifetime', () => {
    const next = growing('gemini-2.5-flash', 2000);
    const model = createGeminiCacheModel({ counter: wordCounter });
    model.judge(next().body, { at: 0 });
    expect(model.judge(next().body, { at: 6 * MINUTE }).cacheReadTokens).toBe(0);
  });
});
