/**
 * `npm run probe:anthropic -- [model]`: with ANTHROPIC_API_KEY set, measures the model's effective
 * floor (bisection), whether `ttl: "1h"` is billed as a 1-hour write, and the read share, and prints
 * a --models-file row. Without a key it prints how to run it and exits 0. Never part of npm test.
 */
import { modelsFileRow, type ProbeSend, probeModel, probeUsage } from '../src/cache/cache-probe.js';

const key = process.env.ANTHROPIC_API_KEY;
const model = process.argv[2] ?? 'claude-sonnet-5-5';
if (!key) {
  console.log(probeUsage('probe:anthropic', 'ANTHROPIC_API_KEY', 'claude-sonnet-5-5'));
} else {
  const send: ProbeSend = async ({ prefixTokens, nonce, ttl, cache }) => {
    // About one token per word: the nonce first, so every trial is a fresh prefix.
    const text = `probe ${nonce}. ${'alpha '.repeat(prefixTokens)}`;
    const block = {
      type: 'text',
      text,
      ...(cache === false ? {} : { cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } }),
    };
    const response = await fetch(`${process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com'}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 1, system: [block], messages: [{ role: 'user', content: 'ok' }] }),
    });
    if (!response.ok) throw new Error(`Anthropic ${response.status}: ${await response.text()}`);
    const usage = ((await response.json()) as { usage: Record<string, unknown> }).usage;
    const number = (value: unknown) => (typeof value === 'number' ? value : 0);
    const read = number(usage.cache_read_input_tokens);
    const write = number(usage.cache_creation_input_tokens);
    const split = (usage.cache_creation ?? {}) as Record<string, unknown>;
    return {
      inputTokens: number(usage.input_tokens) + read + write,
      cacheReadTokens: read,
      cacheWriteTokens: write,
      cacheWrite1hTokens: number(split.ephemeral_1h_input_tokens),
      costUsd: typeof usage.cost === 'number' ? usage.cost : null,
    };
  };
  const result = await probeModel({ provider: 'anthropic', model, send, checkOneHour: true, minTokens: 256, maxTokens: 8192 });
  console.log(JSON.stringify(result, null, 2));
  console.log(modelsFileRow(result, new Date().toISOString().slice(0, 10)));
}
