import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkload } from '../../workloads/load-workload.js';
import { compare, type Report, workloadExchanges } from './test-support/engine-comparison.js';
import { loadEngineModel } from './test-support/llama-cpp-engine.js';
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
