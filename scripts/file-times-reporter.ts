import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * `npm run test:times`: after the run, prints the 15 test files that cost the most CPU (with their
 * import and test wall time and slowest test) and writes one row per file to CACHET_FILE_TIMES
 * (default .cache/file-times.json). CPU (`cpuMs`, from scripts/vitest-file-cpu.ts) is what to
 * compare across runs on a shared machine; wall times inside a worker grow with the load.
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
        cpuMs: testModule.meta().cpuMs ?? 0,
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
    const slowest = [...rows].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 15);
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const lines = slowest.map(
      (row) =>
        `${seconds(row.cpuMs).padStart(7)} s CPU  wall: import ${seconds(row.collectMs)} s, tests ${seconds(row.testsMs)} s  ${row.file}  (slowest: ${row.slowest.name}, ${seconds(row.slowest.ms)} s)`,
    );
    const cpuMs = rows.reduce((sum, row) => sum + row.cpuMs, 0);
    const wallMs = rows.reduce((sum, row) => sum + row.collectMs + row.testsMs, 0);
    process.stdout.write(
      `\nSlowest test files by CPU (${file} has them all; ${rows.length} files, ${seconds(cpuMs)} s CPU in the workers, ${seconds(wallMs)} s wall inside them):\n${lines.join('\n')}\n`,
    );
  }
}
