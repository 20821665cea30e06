import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { createLocalEngineCacheModel, renderLocalEnginePrompt } from './local-engine-cache-model.js';
import { type EngineModel, loadEngineModel, type WireBody, type WireMessage } from './test-support/llama-cpp-engine.js';
import { writeTinyGguf } from './test-support/tiny-gguf.js';
import { bodies, toolLoop } from './test-support/tool-loop-workload.js';

/**
 * Cachet's local cache model against llama.cpp itself (node-llama-cpp 3.22.1 and its prebuilt CPU
 * binary, dev dependencies: no build, no download). Each family's tiny random-weight GGUF carries
 * the family's real vocabulary and the model's own chat template (`test-support/templates/`, the
 * files llama.cpp ships); the engine renders every request with llama.cpp's own Jinja engine from
 * that embedded template and tokenizes it with llama.cpp's tokenizer (`test-support/llama-cpp-engine.ts`).
 * Cachet's prompt text, tokens and predicted reuse are compared with the engine's, request by
 * request, on the bundled `python-app-local` workload (through Cachet's adapter) and on a raw tool
 * loop with parallel calls. A request the template raises on must be rejected by both.
 */

const templateFile = (name: string) => readFileSync(new URL(`./test-support/templates/${name}.jinja`, import.meta.url), 'utf8');

interface FamilyCase {
  name: string;
  model: string;
  vocabulary: 'qwen3' | 'llama3' | 'deepseek' | 'gemma';
  /** The model's own template; the vocabulary package's (the model's tokenizer_config.json) when absent. */
  template?: string;
  /** `content` of a tool-call turn in the raw tool loop, as the family's adapter sends it. */
  toolCallContent: '' | null;
}

const FAMILIES: FamilyCase[] = [
  { name: 'Qwen3', model: 'qwen3-8b', vocabulary: 'qwen3', template: templateFile('Qwen-Qwen3-0.6B'), toolCallContent: '' },
  {
    name: 'Llama 3.1',
    model: 'Meta-Llama-3.1-8B-Instruct',
    vocabulary: 'llama3',
    template: templateFile('meta-llama-Llama-3.1-8B-Instruct'),
    toolCallContent: '',
  },
  {
    name: 'Llama 3.2',
    model: 'Llama-3.2-3B-Instruct',
    vocabulary: 'llama3',
    template: templateFile('meta-llama-Llama-3.2-3B-Instruct'),
    toolCallContent: '',
  },
  {
    name: 'Llama 3.3',
    model: 'Llama-3.3-70B-Instruct',
    vocabulary: 'llama3',
    template: templateFile('meta-llama-Llama-3.3-70B-Instruct'),
    toolCallContent: '',
  },
  { name: 'DeepSeek-V3', model: 'deepseek-v3', vocabulary: 'deepseek', toolCallContent: null },
  { name: 'Gemma 3', model: 'gemma-3-4b-it', vocabulary: 'gemma', toolCallContent: '' },
];

interface Exchange {
  body: WireBody & { model: string };
  reply: WireMessage;
}

/** Per workload: requests, exact ones, rejected ones, processed tokens, prompt bytes equal. */
interface Report {
  requests: number;
  rejectedByBoth: number;
  exact: number;
  textEqual: number;
  tokensEqual: number;
  processedMeasured: number;
  processedPredicted: number;
  firstMismatch: string | null;
  rejection: string | null;
}

/** Replay one session on the engine (one context sequence) and through Cachet's cache model. */
async function compare(engine: EngineModel, exchanges: readonly Exchange[]): Promise<Report> {
  const at = Date.now();
  // The tiny GGUFs are plain llama graphs: full attention, whatever the family's sliding window.
  const cacheModel = createLocalEngineCacheModel({ slidingWindow: 0 });
  const rendered = exchanges.map(({ body }) => engine.prompt(body));
  const longest = Math.max(64, ...rendered.map((prompt) => ('tokens' in prompt ? prompt.tokens.length : 0)));
  const context = await engine.model.createContext({ contextSize: 2 ** Math.ceil(Math.log2(longest + 512)), threads: 1 });
  const sequence = context.getSequence();
  const report: Report = {
    requests: exchanges.length,
    rejectedByBoth: 0,
    exact: 0,
    textEqual: 0,
    tokensEqual: 0,
    processedMeasured: 0,
    processedPredicted: 0,
    firstMismatch: null,
    rejection: null,
  };
  const mismatch = (index: number, what: string) => {
    report.firstMismatch ??= `request ${index}: ${what}`;
  };
  try {
    for (const [index, { body, reply }] of exchanges.entries()) {
      const enginePrompt = rendered[index]!;
      let cachet: { text: string; tokens: number[] } | null;
      let predicted: { cacheReadTokens: number; inputTokens: number } | null;
      try {
        cachet = renderLocalEnginePrompt(body, at);
        predicted = cacheModel.judge(body, { at, reply });
      } catch (error) {
        cachet = null;
        predicted = null;
        report.rejection ??= error instanceof Error ? error.message : String(error);
      }
      if ('rejected' in enginePrompt || !cachet || !predicted) {
        if ('rejected' in enginePrompt && !cachet) report.rejectedByBoth++;
        else mismatch(index, 'rejected' in enginePrompt ? `engine rejects: ${enginePrompt.rejected}` : 'Cachet rejects');
        continue;
      }
      const measured = await evaluate(sequence, enginePrompt.tokens, engine.replyTokens(body, reply));
      if (cachet.text === enginePrompt.text) report.textEqual++;
      else mismatch(index, `text differs at ${firstDifference(cachet.text, enginePrompt.text)}`);
      if (cachet.tokens.join() === enginePrompt.tokens.join()) report.tokensEqual++;
      if (predicted.cacheReadTokens === measured && predicted.inputTokens === enginePrompt.tokens.length) report.exact++;
      else mismatch(index, `reuse predicted ${predicted.cacheReadTokens}, measured ${measured}`);
      report.processedMeasured += enginePrompt.tokens.length - measured;
      report.processedPredicted += predicted.inputTokens - predicted.cacheReadTokens;
    }
  } finally {
    await context.dispose();
  }
  return report;
}

/**
 * Feed a prompt to the sequence the way llama-server's slot does: keep the longest common prefix
 * with its state (at least the last prompt token is evaluated again, for its logits), count the
 * evaluated tokens, then feed the reply the model would generate. Returns the reused tokens.
 */
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

function firstDifference(left: string, right: string): string {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index++;
  return `char ${index}: Cachet ${JSON.stringify(left.slice(index, index + 40))}, engine ${JSON.stringify(right.slice(index, index + 40))}`;
}

function workloadExchanges(model: string, workload: Awaited<ReturnType<typeof loadWorkload>>): Exchange[] {
  const exchanges: Exchange[] = [];
  simulateWorkload(workload, {
    model,
    strategy: 'cachet',
    onBody: (body, { reply }) => {
      if (!reply) throw new Error('the simulator gives local engines the reply each request generated');
      exchanges.push({ body: body as Exchange['body'], reply: reply as WireMessage });
    },
  });
  return exchanges;
}

describe('local engine cache model = llama.cpp rendering its own template (node-llama-cpp, tiny GGUFs)', () => {
  let directory: string;
  let workload: Awaited<ReturnType<typeof loadWorkload>>;
  const reports: Record<string, { workload: Report; toolLoop: Report }> = {};
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'cachet-gguf-'));
    workload = await loadWorkload('python-app-local');
  });
  afterAll(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
    console.table(
      Object.entries(reports).flatMap(([family, { workload: local, toolLoop: loop }]) =>
        [
          ['python-app-local', local],
          ['tool loop (parallel calls)', loop],
        ].map(([name, report]) => {
          const figures = report as Report;
          return {
            family,
            workload: name,
            'exact / total': `${figures.exact}/${figures.requests}`,
            'rejected by both': figures.rejectedByBoth,
            'processed measured / predicted': `${figures.processedMeasured} / ${figures.processedPredicted}`,
            'prompt text equal': `${figures.textEqual}/${figures.requests - figures.rejectedByBoth}`,
          };
        }),
      ),
    );
  });

  it.each(FAMILIES)(
    '$name: every request rendered byte for byte as the engine does and its reuse predicted exactly, or rejected by both',
    async (family) => {
      const modelPath = join(directory, `${family.model}.gguf`);
      writeTinyGguf({
        path: modelPath,
        family: family.vocabulary,
        embedding: 16,
        heads: 2,
        layers: 1,
        ...(family.template ? { chatTemplate: family.template } : {}),
      });
      const engine = await loadEngineModel(modelPath);
      try {
        const local = await compare(engine, workloadExchanges(family.model, workload));
        const loop = await compare(
          engine,
          bodies(family.model, toolLoop(family.toolCallContent, false)).map(({ body, reply }) => ({ body, reply })),
        );
        reports[family.name] = { workload: local, toolLoop: loop };
        for (const report of [local, loop]) {
          expect(report.firstMismatch).toBeNull();
          expect(report.exact + report.rejectedByBoth).toBe(report.requests);
          expect(report.textEqual).toBe(report.exact);
          expect(report.tokensEqual).toBe(report.exact);
        }
        expect(local.rejectedByBoth).toBe(0);
        expect(local.processedMeasured).toBe(local.processedPredicted);
      } finally {
        await engine.model.dispose();
      }
    },
    300_000,
  );
});
