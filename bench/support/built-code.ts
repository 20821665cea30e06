/**
 * The code a bench measures: by default tsc's output with the build's own compiler options, as
 * `npm run build` ships it and `cachet` runs it, not the sources under tsx. tsx compiles with
 * esbuild's `keepNames`, so every closure created in a hot function pays a `__name()` call the
 * shipped code does not; it also transforms plain `.js` files it loads, so a bench child that
 * should run the built code must not run under tsx at all. `CACHET_BENCH_CODE=source` measures the
 * sources under tsx instead (to compare the two, or to bench a change without a build).
 *
 * The build goes to `node_modules/.cache/cachet-bench-build/<hash>/`, named after the entries and
 * the contents of every file it compiles, so an unchanged tree builds once per set of entries and
 * an edited one builds afresh.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BenchCode = 'built' | 'source';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cacheRoot = join(repositoryRoot, 'node_modules', '.cache', 'cachet-bench-build');

/** Which code the benches measure: `built` unless `CACHET_BENCH_CODE=source`. */
export function benchCode(): BenchCode {
  const chosen = process.env.CACHET_BENCH_CODE ?? 'built';
  if (chosen !== 'built' && chosen !== 'source') {
    throw new Error(`CACHET_BENCH_CODE must be "built" or "source", not "${chosen}"`);
  }
  return chosen;
}

function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function contentHash(files: string[], entries: string[]): string {
  const hash = createHash('sha256');
  // Which entries tsc compiles, not only what they contain: an entry inside bench/support/ adds no
  // file to the inputs, and another entry's build of the same tree lacks its output.
  hash.update(entries.join('\n')).update('\0');
  for (const file of files) {
    hash.update(relative(repositoryRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Keeps the three newest builds (another bench's entries build to their own directory). */
function removeOldBuilds(): void {
  if (!existsSync(cacheRoot)) return;
  const builds = readdirSync(cacheRoot)
    .map((name) => ({ path: join(cacheRoot, name), modified: statSync(join(cacheRoot, name)).mtimeMs }))
    .sort((first, second) => second.modified - first.modified);
  for (const build of builds.slice(3)) rmSync(build.path, { recursive: true, force: true });
}

/**
 * Compiles `entries` (paths relative to the repository) and everything they import with the
 * build's compiler options, once per content; returns the output directory, which mirrors the
 * repository (`<directory>/bench/support/x.js` for `bench/support/x.ts`). Prints one line when it builds.
 */
export function builtCode(entries: string[]): string {
  const inputs = [
    ...typeScriptFiles(join(repositoryRoot, 'src')),
    ...typeScriptFiles(join(repositoryRoot, 'bench', 'support')),
    ...entries.map((entry) => join(repositoryRoot, entry)),
    join(repositoryRoot, 'tsconfig.json'),
    join(repositoryRoot, 'tsconfig.build.json'),
  ];
  const key = contentHash([...new Set(inputs)], entries);
  const outDirectory = join(cacheRoot, key);
  if (existsSync(join(outDirectory, '.complete'))) return outDirectory;
  removeOldBuilds();
  mkdirSync(outDirectory, { recursive: true });
  const configFile = join(outDirectory, 'tsconfig.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      extends: join(repositoryRoot, 'tsconfig.build.json'),
      compilerOptions: { rootDir: repositoryRoot, outDir: outDirectory, declaration: false, incremental: false },
      include: [],
      files: entries.map((entry) => join(repositoryRoot, entry)),
    }),
  );
  const started = performance.now();
  const compiled = spawnSync(
    process.execPath,
    [join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', configFile],
    {
      stdio: 'inherit',
    },
  );
  if (compiled.status !== 0) throw new Error(`tsc failed to build ${entries.join(', ')} for the bench (exit ${compiled.status})`);
  writeFileSync(join(outDirectory, '.complete'), '');
  console.log(`built ${entries.join(', ')} with tsc in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return outDirectory;
}

/**
 * The command line that runs the bench file `entry` (relative to the repository) in a child
 * process: node on its tsc output when the benches measure the built code, node with tsx on the
 * source otherwise. `nodeOptions` go before the script (e.g. `--expose-gc`).
 */
export function benchChildCommand(
  entry: string,
  nodeOptions: string[] = [],
): { command: string; args: string[]; code: BenchCode } {
  const code = benchCode();
  if (code === 'source') {
    return { command: process.execPath, args: ['--import', 'tsx', ...nodeOptions, join(repositoryRoot, entry)], code };
  }
  const script = join(builtCode([entry]), entry.replace(/\.ts$/, '.js'));
  return { command: process.execPath, args: [...nodeOptions, script], code };
}
