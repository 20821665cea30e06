import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// npm checks an optional peer's range whenever the project has that package, so a range that
// misses the major a user has installed fails `npm install cachet` with ERESOLVE (openai 7 did).
// The suite runs against the version of each peer in node_modules and, through alias
// devDependencies (`openai-v7` → `npm:openai@^7`), against the peer's other supported majors:
// each of those must be inside the declared range, so what the tests exercise is what npm admits.
// `npm run check:peers` compares the ranges with the registry's newest versions (network).

interface Manifest {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
}

/** The part of the `semver` package (npm's own range logic) this test uses; no types are installed for it. */
interface Semver {
  satisfies(version: string, range: string): boolean;
  major(version: string): number;
  minVersion(range: string): { major: number } | null;
  Range: new (range: string) => { set: ReadonlyArray<ReadonlyArray<{ value: string }>> };
}
const semver = createRequire(import.meta.url)('semver') as Semver;

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Manifest;

/** Majors a range admits that node_modules does not hold, and where they are tested instead. */
const MAJORS_TESTED_ELSEWHERE: Record<string, { major: number; reason: string }> = {
  'better-sqlite3': {
    major: 13,
    reason:
      'a native addon with one binary per Node: `npm run test:matrix` runs the suite on Node 22 and 24 with 13 in place of 12',
  },
};

/** `peer` itself and every alias devDependency of it (`"openai-v7": "npm:openai@^7.59.0"`). */
function installedCopies(peer: string): { name: string; version: string }[] {
  const names = [
    peer,
    ...Object.entries(manifest.devDependencies)
      .filter(([, spec]) => spec.startsWith(`npm:${peer}@`))
      .map(([alias]) => alias),
  ];
  return names.map((name) => {
    const installed = JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), 'utf8')) as {
      version: string;
    };
    return { name, version: installed.version };
  });
}

/** The newest major each `||` alternative of a range starts at (`^6.49.0 || ^7.0.0` → 7). */
function newestMajorOf(range: string): number {
  const starts = new semver.Range(range).set.map((comparators) => comparators.map((comparator) => comparator.value).join(' '));
  return Math.max(...starts.map((start) => semver.minVersion(start)!.major));
}

const peers = Object.entries(manifest.peerDependencies);

describe('optional peer ranges', () => {
  it('every peer is optional and installed as a devDependency, so the suite runs against it', () => {
    for (const [peer] of peers) {
      expect(manifest.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
      expect(manifest.devDependencies[peer], peer).toBeDefined();
    }
  });

  it.each(peers)('%s: every installed copy (aliases too) is inside the range %s', (peer, range) => {
    for (const copy of installedCopies(peer)) {
      expect(semver.satisfies(copy.version, range), `${copy.name}@${copy.version} against ${peer} "${range}"`).toBe(true);
    }
  });

  it.each(peers)('%s: the newest major the range %s admits is installed', (peer, range) => {
    const installedMajors = installedCopies(peer).map((copy) => semver.major(copy.version));
    const newest = newestMajorOf(range);
    if (MAJORS_TESTED_ELSEWHERE[peer]?.major === newest) return;
    expect(installedMajors, `${peer} "${range}" admits major ${newest}`).toContain(newest);
  });
});
