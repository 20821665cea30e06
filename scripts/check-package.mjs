// Checks what `npm pack` would publish: the licence and changelog are there, no test code,
// test fixtures or source maps are, and every subpath export points at a shipped file, with a
// `default` condition beside `import` for CommonJS projects.
// Builds first (`npm pack` runs `prepack`). Exit 1 with the offending paths.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { encoding: 'utf8' });
const [pack] = JSON.parse(output.slice(output.indexOf('[')));
const files = new Set(pack.files.map((file) => file.path));
const problems = [];
for (const required of ['LICENSE', 'CHANGELOG.md', 'README.md', 'bin/cachet.js']) {
  if (!files.has(required)) problems.push(`missing: ${required}`);
}
for (const path of files) {
  if (/\.map$/.test(path)) problems.push(`source map shipped: ${path}`);
  if (/(\.test\.|test-support|test-fixtures)/.test(path)) problems.push(`test code shipped: ${path}`);
}
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
for (const [subpath, target] of Object.entries(manifest.exports)) {
  if (typeof target === 'string') continue;
  for (const file of [target.types, target.import]) {
    if (file && !files.has(file.replace(/^\.\//, ''))) problems.push(`export ${subpath} points at an unshipped ${file}`);
  }
  // `default` lets a CommonJS project require() the ESM entry (require(esm), Node >= 20.19 / 22.12).
  if (target.default !== target.import) problems.push(`export ${subpath}: "default" must be its "import" file`);
}
if (problems.length > 0) {
  console.error(`check-package: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(
  `check-package: ${files.size} files, ${pack.size} bytes packed, ${pack.unpackedSize} unpacked; no tests, fixtures or maps`,
);
