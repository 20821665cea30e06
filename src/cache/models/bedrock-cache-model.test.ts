import { describe, expect, it } from 'vitest';
import { fixtureSession } from '../../providers/anthropic/test-support/fixtures.js';
import { convertToBedrock } from '../../providers/bedrock/convert-request.js';
import { assemble } from '../../session/assemble.js';
import { wordCounter, words } from '../test-support/fixtures.js';
import { createBedrockCacheModel } from './bedrock-cache-model.js';

const MINUTE = 60_000;
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** A session whose persona is `personaWords` words long; each call adds one user turn and reply. */
function growingSession(model: string, personaWords: number) {
  const session = fixtureSession({ model, tail: [], globalSystem: [{ label: 'persona', text: words(personaWords, 'p') }] });
  let turn = 0;
  return () => {
    if (turn > 0) session.append({ role: 'assistant', content: [{ type: 'text', text: words(40, `a${turn}`) }] });
    session.appendUserText(words(60, `u${turn}`));
    turn += 1;
    return convertToBedrock(assemble(session), { tokenCounter: wordCounter }).body;
  };
}

describe('Bedrock cache model', () => {
  it('writes at the checkpoints of the first request and reads them on the next (Claude rules)', () => {
    const next = growingSession(CLAUDE, 3000);
    const cache = createBedrockCacheModel({ counter: wordCounter });
    const first = cache.judge(next(), { at: 0 });
    expect(first.cacheReadTokens).toBe(0);
    expect(first.cacheWriteTokens).toBeGreaterThanOrEqual(3000);
    const second = cache.judge(next(), { at: MINUTE });
    expect(second.cacheReadTokens).toBeGreaterThanOrEqual(first.cacheWriteTokens);
    expect(second.explanation.join(' ')).toMatch(/^Read /);
  });

  it('caches nothing below the model minimum per checkpoint (Haiku 4.5: 4,096 from the Anthropic row)', () => {
    const next = growingSession('global.anthropic.claude-haiku-4-5-20251001-v1:0', 3000);
    const cache = createBedrockCacheModel({ counter: wordCounter });
    cache.judge(next(), { at: 0 });
    const second = cache.judge(next(), { at: MINUTE });
    expect(second.cacheReadTokens).toBe(0);
    expect(second.explanation.join(' ')).toMatch(/below the 4,096-token minimum/);
  });

  it('uses the Bedrock exception row for Claude 3.7 Sonnet (1,024, not the unknown-model 4,096)', () => {
    const next = growingSession('anthropic.claude-3-7-sonnet-20250219-v1:0', 2000);
    const cache = createBedrockCacheModel({ counter: wordCounter });
    expect(cache.judge(next(), { at: 0 }).cacheWriteTokens).toBeGreaterThanOrEqual(2000);
  });

  it('treats a body Bedrock would reject as caching nothing, and says why', () => {
    const body = growingSession(CLAUDE, 2000)();
    const cache = createBedrockCacheModel({ counter: wordCounter });
    const wrongOrder = structuredClone(body);
    wrongOrder.system = [{ text: words(2000, 'p') }, { cachePoint: { type: 'default' } }];
    const last = wrongOrder.messages!.at(-1)!.content!;
    last.push({ cachePoint: { type: 'default', ttl: '1h' } });
    const verdict = cache.judge(wrongOrder, { at: 0 });
    expect(verdict.rejected).toMatch(/TTLs must not increase/);
    expect(verdict.cacheWriteTokens).toBe(0);

    const nova = structuredClone(body);
    nova.modelId = 'amazon.nova-pro-v1:0';
    nova.toolConfig!.tools!.push({ cachePoint: { type: 'default' } });
    expect(cache.judge(nova, { at: 0 }).rejected).toMatch(/does not accept cache checkpoints in tools/);
  });
});
