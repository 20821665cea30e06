import { defineConfig } from 'vitest/config';

/**
 * The suites that need Node ≥ 22 (`ai` 7): `npm run test:node22` runs them with the Node that
 * `scripts/install-node.sh` puts in .cache/node/<major>/ (22 unless told otherwise).
 */
export default defineConfig({
  test: {
    include: ['src/**/*.node22.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    setupFiles: ['./scripts/vitest-property-seed.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
