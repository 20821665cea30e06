import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * `npm run test:times`: after the run, prints the 15 slowest test files (import and test time, the
 * slowest test) and writes one row per file to CACHET_FILE_TIMES (default .cache/file-times.json).
 * Times are wall clock inside the worker: on a busy machine compare them within one run.
 */
export default class FileTimesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules.map((testModule) => {
      const diagnostic = testModule.diagnostic();
      let slowest = { name: '', ms: 0 };
      let tests = 0;
      let skipped = 0;
      for (const testCase of testModule.children.allTests()) {
        tests++;
        const state = testCase.result().state;
        if (state === 'skipped' || state === 'pending') skipped++;
        const ms = testCase.diagnostic()?.duration ?? 0;
        if (ms > slowest.ms) slowest = { name: testCase.fullName, ms };
      }
      return {
        file: relative(process.cwd(), testModule.moduleId),
        collectMs: Math.round(diagnostic.collectDuration),
        setupMs: Math.round(diagnostic.setupDuration),
        testsMs: Math.round(diagnostic.duration),
        tests,
        skipped,
        slowest: { name: slowest.name, ms: Math.round(slowest.ms) },
      };
    });
    const file = process.env.CACHET_FILE_TIMES ?? '.cache/file-times.json';
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(rows, null, 1)}\n`);
    const slowest = [...rows].sort((a, b) => b.collectMs + b.testsMs - (a.collectMs + a.testsMs)).slice(0, 15);
    const lines = slowest.map(
      (row) =>
        `${String(((row.collectMs + row.testsMs) / 1000).toFixed(1)).padStart(7)} s  import ${(row.collectMs / 1000).toFixed(1)} s, tests ${(row.testsMs / 1000).toFixed(1)} s  ${row.file}  (slowest: ${row.slowest.name}, ${(row.slowest.ms / 1000).toFixed(1)} s)`,
    );
    process.stdout.write(`\nSlowest test files (${file} has them all):\n${lines.join('\n')}\n`);
  }
}
