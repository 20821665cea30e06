import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Node ≥ 22 suites (ai 7) run under vitest.node22.config.ts with a Node from scripts/install-node.sh.
    exclude: ['**/node_modules/**', '**/dist/**', 'src/**/*.node22.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One test file per core: vitest's default (cores − 1) runs a 2-core machine's suite on one
    // worker, so independent slow files wait for each other. VITEST_MAX_WORKERS still overrides.
    maxWorkers: availableParallelism(),
    setupFiles: ['./scripts/vitest-property-seed.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
