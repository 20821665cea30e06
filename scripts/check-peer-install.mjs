// Resolves an install of the packed tarball beside the newest major of every optional peer the
// suite tests — for each peer, the newest version among its copies in node_modules (the package
// and its alias devDependencies: openai-v7, ai-v7, @ai-sdk/*-v4) — in an empty project, and fails
// on ERESOLVE. npm checks an optional peer's range whenever the project has that package, so a
// range that misses a supported major fails `npm install cachet` there (openai 7 did).
// `--package-lock-only` builds npm's tree and writes the lockfile without extracting anything;
// `--prefer-offline` takes the packages' metadata from npm's cache, as check-installed does, and
// asks the registry for what the cache lacks (213 packages: 11 s warm, 17 s with an empty cache).
// Called by scripts/check-installed.mjs with the tarball it packed (`npm run check:package`).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

/** `peer@<newest installed version>`, over the package and its `npm:<peer>@...` aliases. */
function newestInstalledSpec(root, manifest, peer) {
  const aliases = Object.entries(manifest.devDependencies)
    .filter(([, spec]) => spec.startsWith(`npm:${peer}@`))
    .map(([alias]) => alias);
  const versions = [peer, ...aliases].map(
    (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version,
  );
  return `${peer}@${semver.rsort(versions)[0]}`;
}

/**
 * npm's resolution of `tarball` beside the newest installed major of every optional peer, in a
 * fresh empty project under `work`. Returns the problems (empty when it resolves).
 */
export function checkPeerInstall({ root, manifest, tarball, work }) {
  const peers = Object.keys(manifest.peerDependencies).filter((peer) => manifest.peerDependenciesMeta[peer]?.optional);
  const specs = peers.map((peer) => newestInstalledSpec(root, manifest, peer));
  const project = join(work, 'peers-project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty', private: true, type: 'module' }));
  const started = performance.now();
  const install = spawnSync(
    'npm',
    ['install', '--package-lock-only', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...specs],
    { cwd: project, encoding: 'utf8' },
  );
  const seconds = (performance.now() - started) / 1000;
  if (install.status !== 0) {
    return [`npm install of the tarball beside ${specs.join(' ')} failed:\n${install.stderr.slice(0, 3000)}`];
  }
  console.log(`check-peer-install: the tarball resolves beside ${specs.length} optional peers in ${seconds.toFixed(1)} s`);
  console.log(`  ${specs.join(' ')}`);
  return [];
}
