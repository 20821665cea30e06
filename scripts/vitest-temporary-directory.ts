import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: the whole run writes its temporary files (trace stores, captures, the CLI
 * child processes' files, embedded PostgreSQL data) under one directory of its own, removed when
 * the run ends. Tests create directories with `mkdtemp(tmpdir())` and many never removed them: a
 * day of runs left thousands in /tmp. Setting TMPDIR here reaches the worker processes and every
 * child they spawn, because vitest starts its workers after global setup and they inherit the
 * environment. `CACHET_KEEP_TEST_FILES=1` keeps the directory to inspect a failure.
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const directory = mkdtempSync(join(tmpdir(), 'cachet-test-run-'));
  // mkdtemp makes it 0700; as root the throwaway PostgreSQL runs as another user (initdb refuses
  // root), which must reach its own directory inside this one.
  chmodSync(directory, 0o755);
  process.env.TMPDIR = directory;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.CACHET_KEEP_TEST_FILES === '1') {
      console.log(`temporary files of this run kept in ${directory} (${readdirSync(directory).length} entries)`);
      return;
    }
    rmSync(directory, { recursive: true, force: true });
  };
}
