import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the test run temporary directory', () => {
  it('puts every temporary file of the run under one directory removed at its end', () => {
    // scripts/vitest-temporary-directory.ts sets TMPDIR for the workers; without it tests would
    // write straight into the machine's /tmp and leave what they do not remove.
    expect(basename(tmpdir())).toMatch(/^cachet-test-run-/);
    expect(dirname(tmpdir())).not.toBe(tmpdir());
  });

  it('lets other users reach their own directories inside it (the throwaway PostgreSQL runs as postgres under root)', () => {
    expect(statSync(tmpdir()).mode & 0o005).toBe(0o005);
  });
});
