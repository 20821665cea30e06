/**
 * `npm run probe:openai -- [model]`: with OPENAI_API_KEY set, measures the model's effective floor
 * (bisection) and the share of a repeated prefix reported as `cached_tokens`, and prints a
 * --models-file row. Without a key it prints how to run it and exits 0. Never part of npm test.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { modelsFileRow, type ProbeSend, probeModel, probeUsage } from '../src/cache/cache-probe.js';

const key = process.env.OPENAI_API_KEY;
const model = process.argv[2] ?? 'gpt-5.5';
if (!key) {
  console.log(probeUsage('probe:openai', 'OPENAI_API_KEY', 'gpt-5.5'));
} else {
  const send: ProbeSend = async ({ prefixTokens, nonce }) => {
    const response = await fetch(`${process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_completion_tokens: 16,
        messages: [
          { role: 'system', content: `probe ${nonce}. ${'alpha '.repeat(prefixTokens)}` },
          { role: 'user', content: 'ok' },
        ],
      }),
    });
    if (!response.ok) throw new Error(`OpenAI ${response.status}: ${await response.text()}`);
    const usage = ((await response.json()) as { usage: Record<string, unknown> }).usage;
    const cached = Number((usage.prompt_tokens_details as Record<string, unknown> | undefined)?.cached_tokens ?? 0);
    // The cache is written after the response: give it a moment before the repeat.
    await sleep(1500);
    return {
      inputTokens: Number(usage.prompt_tokens ?? 0),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      costUsd: typeof usage.cost === 'number' ? usage.cost : null,
    };
  };
  const result = await probeModel({ provider: 'openai-chat', model, send, minTokens: 512, maxTokens: 4096 });
  console.log(JSON.stringify(result, null, 2));
  console.log(modelsFileRow(result, new Date().toISOString().slice(0, 10)));
}
