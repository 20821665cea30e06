// `npm run check:peers` (maintainers; asks the npm registry, so not part of `npm test`): for each
// optional peer, the registry's newest version (`latest`), whether the declared range accepts it,
// and the newest version the suite tests (the package in node_modules or an alias devDependency
// such as openai-v7). A `latest` outside the range means `npm install cachet` fails with ERESOLVE
// in a project that has it: widen the range once the suite passes against it (an alias
// devDependency, `npm install -D <peer>-v<major>@npm:<peer>@^<major>`). Exit 1 when a latest is
// outside its range; a latest inside the range but of a major the suite does not install is
// reported (the suite does not run against it).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const peers = Object.keys(manifest.peerDependencies).filter((peer) => manifest.peerDependenciesMeta[peer]?.optional);

/** The newest version among the peer and its `npm:<peer>@...` aliases in node_modules, or null. */
function newestTested(peer) {
  const aliases = Object.entries(manifest.devDependencies)
    .filter(([, spec]) => spec.startsWith(`npm:${peer}@`))
    .map(([alias]) => alias);
  const versions = [peer, ...aliases].flatMap((name) => {
    try {
      return [JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version];
    } catch {
      return [];
    }
  });
  return versions.length > 0 ? semver.rsort(versions)[0] : null;
}

async function latestOf(peer) {
  const { stdout } = await run('npm', ['view', peer, 'dist-tags.latest', '--json', '--loglevel=error'], { cwd: root });
  return JSON.parse(stdout);
}

/** Runs `task` over `items`, `limit` at a time, results in order. */
async function mapLimited(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const rows = await mapLimited(peers, 4, async (peer) => {
  const range = manifest.peerDependencies[peer];
  const tested = newestTested(peer);
  try {
    const latest = await latestOf(peer);
    const accepted = semver.satisfies(latest, range);
    const untested = accepted && tested !== null && semver.major(latest) > semver.major(tested);
    return {
      peer,
      range,
      latest,
      tested,
      verdict: accepted ? (untested ? 'accepted; its major is newer than node_modules holds' : 'accepted') : 'OUTSIDE',
    };
  } catch (error) {
    return { peer, range, latest: '?', tested, verdict: `registry error: ${String(error.message).split('\n')[0]}` };
  }
});

const header = { peer: 'peer', range: 'range', latest: 'latest', tested: 'tested', verdict: 'verdict' };
const widths = Object.fromEntries(
  Object.keys(header).map((key) => [key, Math.max(...[header, ...rows].map((row) => String(row[key] ?? '-').length))]),
);
for (const row of [header, ...rows]) {
  console.log(
    Object.keys(header)
      .map((key) => String(row[key] ?? '-').padEnd(widths[key]))
      .join('  ')
      .trimEnd(),
  );
}
const outside = rows.filter((row) => row.verdict === 'OUTSIDE');
const failed = rows.filter((row) => row.verdict.startsWith('registry error'));
if (outside.length > 0) {
  console.error(
    `check-peers: ${outside.length} peer(s) whose newest version the range refuses (npm install cachet fails beside it): ${outside.map((row) => row.peer).join(', ')}`,
  );
}
if (failed.length > 0) console.error(`check-peers: ${failed.length} peer(s) not read from the registry`);
process.exit(outside.length > 0 || failed.length > 0 ? 1 : 0);
