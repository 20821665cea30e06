import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const runsNode22Suites = Number(process.versions.node.split('.')[0]) >= 22;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The ai 7 suites (`*.node22.test.ts`) need Node ≥ 22: on such a Node they run here; on an older
    // one `npm test` runs them afterwards with a Node 22 from the npm registry (scripts/test-node22.sh).
    exclude: ['**/node_modules/**', '**/dist/**', ...(runsNode22Suites ? [] : ['src/**/*.node22.test.ts'])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each worker process runs its files one after another and keeps the modules it has loaded:
    // starting a process and importing the library again for every one of ~250 files cost more
    // CPU than most files' tests (measured on 30 provider and model files: 34.5 s of CPU with a
    // fresh process per file, 13.6 s without). Files that change process state (cwd, env, timers,
    // console spies) put it back in afterEach/finally, which this relies on.
    isolate: false,
    // One test file per core: vitest's default (cores − 1) runs a 2-core machine's suite on one
    // worker, so independent slow files wait for each other. VITEST_MAX_WORKERS still overrides.
    maxWorkers: availableParallelism(),
    globalSetup: ['./scripts/vitest-temporary-directory.ts'],
    setupFiles: ['./scripts/vitest-property-seed.ts', './scripts/vitest-file-cpu.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
