// `npm test`: vitest in the foreground and, beside it, one lane running the type check, then the
// package check (build, pack, install into an empty project), then the Node 22 suites when the
// running Node is older. Run one after another they left a core idle for about two minutes
// (vitest's last files, then single-threaded tsc and npm); side by side the whole command takes
// about what its CPU time divided by the cores takes. The lane's output is held back and printed
// after vitest's, so vitest's report stays readable; every step's outcome and wall time close the
// run. Exit status: 0 only when every step passed, else 1 (nothing is skipped because another
// step failed). Arguments go to vitest (`npm test -- src/cache`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = performance.now();
const children = new Set();

/** Runs a command; resolves with its exit code and, unless `live`, its output (stdout and stderr interleaved). */
function run(name, command, args, { live = false } = {}) {
  const at = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    const finish = (code, error) => {
      children.delete(child);
      const output = Buffer.concat(chunks).toString('utf8') + (error ? `${error.message}\n` : '');
      resolve({ name, code, output, seconds: (performance.now() - at) / 1000 });
    };
    child.on('error', (error) => finish(1, error));
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

/** The steps beside vitest, one at a time (so at most one more process competes with vitest's workers). */
async function lane() {
  const results = [];
  results.push(await run('typecheck', npm, ['run', '--silent', 'typecheck']));
  results.push(await run('check:package', npm, ['run', '--silent', 'check:package']));
  results.push(await run('test:node22', npm, ['run', '--silent', 'test:node22', '--', '--if-needed']));
  return results;
}

/** CPU time (user + system) of this process's finished children, in seconds: Linux only. */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exit(1);
  });
}

const beside = lane();
const vitest = await run('vitest', process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  live: true,
});
const results = [vitest, ...(await beside)];
for (const result of results.slice(1)) {
  const text = result.output.trimEnd();
  if (text) process.stdout.write(`\n── ${result.name} ──\n${text}\n`);
}
const cpu = childrenCpuSeconds();
const lines = results.map((result) => `  ${result.code === 0 ? 'ok  ' : 'FAIL'} ${result.name} (${result.seconds.toFixed(0)} s)`);
const failed = results.filter((result) => result.code !== 0);
process.stdout.write(
  `\nnpm test: ${failed.length === 0 ? 'passed' : `${failed.length} step(s) failed`} in ${((performance.now() - started) / 1000).toFixed(0)} s` +
    `${cpu === null ? '' : `, ${cpu.toFixed(0)} s of CPU`}\n${lines.join('\n')}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
