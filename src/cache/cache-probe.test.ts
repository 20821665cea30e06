import { describe, expect, it } from 'vitest';
import { findFloor, modelsFileRow, type ProbeSend, probeModel, probeUsage } from './cache-probe.js';
import { parseModelsFile } from './models-file.js';

/** A fake provider: caches prefixes of at least `floor` tokens, reads at `read`× the input price. */
function fakeProvider(floor: number, read = 0.05, oneHour = true): ProbeSend & { sent: number } {
  const written = new Set<string>();
  const send = (async ({ prefixTokens, nonce, ttl, cache }) => {
    send.sent += 1;
    const key = `${nonce}/${prefixTokens}`;
    const cacheable = cache !== false && prefixTokens >= floor;
    const hit = cacheable && written.has(key);
    if (cacheable) written.add(key);
    const write = cacheable && !hit ? prefixTokens : 0;
    const readTokens = hit ? prefixTokens : 0;
    const inputTokens = prefixTokens + 10;
    const costUsd = ((inputTokens - readTokens) * 1 + readTokens * read) / 1e6;
    return {
      inputTokens,
      cacheReadTokens: readTokens,
      cacheWriteTokens: write,
      cacheWrite1hTokens: ttl === '1h' && oneHour ? write : 0,
      costUsd: write > 0 ? costUsd * 1.25 : costUsd,
    };
  }) as ProbeSend & { sent: number };
  send.sent = 0;
  return send;
}

describe('the cache probe (fake provider, no network)', () => {
  it('finds the floor by bisection within the resolution', async () => {
    for (const floor of [300, 1024, 2048, 4096, 7000]) {
      const send = fakeProvider(floor);
      const found = await findFloor(send, { minTokens: 256, maxTokens: 8192, resolution: 64 });
      expect(found.floorTokens, String(floor)).toBeGreaterThanOrEqual(floor);
      expect(found.floorTokens! - floor, String(floor)).toBeLessThanOrEqual(64);
      expect(found.requests).toBe(send.sent);
      expect(found.requests).toBeLessThanOrEqual(2 * (2 + Math.ceil(Math.log2(8192 / 64))));
    }
  });

  it('reports no floor when nothing up to the top of the range is cached', async () => {
    expect((await findFloor(fakeProvider(20_000), { minTokens: 256, maxTokens: 8192, resolution: 64 })).floorTokens).toBeNull();
  });

  it('measures the 1-hour TTL, the read share and multiplier, and prints a row the models file accepts', async () => {
    const result = await probeModel({
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
      send: fakeProvider(1024),
      checkOneHour: true,
    });
    expect(result).toMatchObject({ oneHourHonoured: true });
    expect(result.readShare).toBeGreaterThan(0.9);
    expect(result.readMultiplier).toBeCloseTo(0.05, 3);
    const row = modelsFileRow(result, '2026-11-27');
    expect(row).toMatch(
      /^- \{provider: anthropic, model: claude-sonnet-5-5, floorTokens: 10\d\d, ttlOptions: \[5m, 1h\], readMultiplier: 0\.05/,
    );
    const [parsed] = parseModelsFile(row, 'probe-output.yaml').rows;
    expect(parsed).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
      ttlOptions: ['5m', '1h'],
      checked: '2026-11-27',
    });
    expect(parsed?.price?.cacheReadPerMTok).toBeCloseTo(0.1, 3);
  });

  it('leaves the multiplier out when the usage carries no cost, and 1h out when it was not honoured', async () => {
    const provider = fakeProvider(1024, 0.1, false);
    const noCost: ProbeSend = async (request) => ({ ...(await provider(request)), costUsd: null });
    const result = await probeModel({ provider: 'anthropic', model: 'claude-haiku-5-5', send: noCost, checkOneHour: true });
    expect(result.readMultiplier).toBeNull();
    expect(modelsFileRow(result, '2026-11-27')).toMatch(/ttlOptions: \[5m\], source:/);
  });

  it('says how to run it without a key', () => {
    expect(probeUsage('probe:openai', 'OPENAI_API_KEY', 'gpt-5.5')).toMatch(/no OPENAI_API_KEY.*\n.*npm run probe:openai/);
  });
});
