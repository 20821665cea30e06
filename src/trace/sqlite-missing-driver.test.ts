import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { missingDependencyOf } from '../model/optional-dependency.js';

// A machine without better-sqlite3: requiring it fails as it does there.
vi.mock('../model/optional-dependency.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../model/optional-dependency.js')>();
  return {
    ...original,
    requireOptional: (packageName: string, _specifier: string, purpose: string) => {
      throw new original.MissingDependencyError(packageName, purpose);
    },
  };
});

// The suite shares modules between files (isolate: false): load them afresh, with the mock.
vi.resetModules();
// And for the files after this one (same worker): the real modules again.
afterAll(() => {
  vi.doUnmock('../model/optional-dependency.js');
  vi.resetModules();
});
const { openTraceStore } = await import('./open-trace-store.js');
const directory = mkdtempSync(join(tmpdir(), 'cachet-sqlite-missing-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the SQLite trace store without better-sqlite3', () => {
  it('names the package and creates no directory (the demo left an empty .cachet/)', async () => {
    const location = join(directory, '.cachet', 'traces.db');
    const failure = await openTraceStore(location).then(
      () => null,
      (error: unknown) => error,
    );
    expect(missingDependencyOf(failure)?.packageName).toBe('better-sqlite3');
    expect(existsSync(join(directory, '.cachet'))).toBe(false);
  });
});
