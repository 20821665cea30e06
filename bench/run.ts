/**
 * Runs every `bench/*.bench.ts` file, each in its own Node process (so timings and peak memory
 * of one benchmark do not leak into the next). `npm run bench -- assemble` runs only files
 * whose name contains `assemble`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDirectory = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(benchDirectory)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

if (files.length === 0) {
  console.error(`no bench/*.bench.ts file matches ${filters.join(', ')}`);
  process.exit(1);
}

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(benchDirectory, file)], {
    stdio: 'inherit',
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed++;
    console.log(`--- ${file} failed (exit ${result.status ?? result.signal}) after ${seconds} s`);
  } else {
    console.log(`--- ${file} done in ${seconds} s`);
  }
}
process.exit(failed === 0 ? 0 : 1);
