import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openSqliteTraceStore } from '../../trace/sqlite-trace-store.js';
import { captureOutput, temporaryFiles } from '../test-support/cli-test-io.js';
import { runAnalyze } from './analyze.js';
import { IMPORT_BAD_INPUT_EXIT_CODE, runImport } from './import.js';

const FIXTURES = fileURLToPath(new URL('../../import/__fixtures__/', import.meta.url));

describe('cachet import', () => {
  it.each([
    ['claude-code', 6],
    ['codex', 3],
    ['opencode', 3],
    ['pi', 3],
  ])('%s --json prints one object with the figures, and the store holds the requests', async (harness, requests) => {
    const { directory } = temporaryFiles('cachet-import-cli-');
    const db = join(directory, 'traces.db');
    const io = captureOutput();
    expect(await runImport(harness, join(FIXTURES, harness), { db, json: true, storeContent: 'hashes' }, io.output)).toBe(0);
    expect(io.out).toHaveLength(1);
    const summary = JSON.parse(io.out[0]!);
    for (const key of [
      'sessions',
      'requests',
      'inputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'outputTokens',
      'costUsd',
      'skippedLines',
    ]) {
      expect(summary[key], key).toEqual(expect.any(Number));
    }
    expect(summary.requests).toBe(requests);
    expect(summary.skippedLines).toBeGreaterThan(0);
    const store = openSqliteTraceStore(db);
    const report = await store.cacheEffectiveness();
    await store.close();
    expect(report.overall.requests).toBe(requests);
  });

  it('hashes project paths by default and keeps them under --store-content full', async () => {
    const stored = async (storeContent: 'hashes' | 'full' | 'none') => {
      const { directory } = temporaryFiles('cachet-import-project-');
      const db = join(directory, 'traces.db');
      await runImport('pi', join(FIXTURES, 'pi'), { db, storeContent }, captureOutput().output);
      const store = openSqliteTraceStore(db);
      const [started] = await store.events({ types: ['session.started'] });
      await store.close();
      return started?.type === 'session.started' ? started.payload.project : 'missing';
    };
    expect(await stored('full')).toBe('/work/demo');
    expect(await stored('hashes')).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(await stored('none')).toBeUndefined();
  });

  it('exits 2 on an unknown harness or a missing path, naming it, and creates no store', async () => {
    const { directory } = temporaryFiles('cachet-import-bad-');
    const db = join(directory, 'traces.db');
    const unknown = captureOutput();
    expect(await runImport('cursor', undefined, { db, storeContent: 'hashes' }, unknown.output)).toBe(IMPORT_BAD_INPUT_EXIT_CODE);
    expect(unknown.err.join('\n')).toContain('unknown harness "cursor": expected one of claude-code, codex, opencode, pi');
    const missing = captureOutput();
    expect(await runImport('codex', join(directory, 'nowhere'), { db, storeContent: 'hashes' }, missing.output)).toBe(
      IMPORT_BAD_INPUT_EXIT_CODE,
    );
    expect(missing.err.join('\n')).toContain('nowhere: no such file or directory');
    expect(existsSync(db)).toBe(false);
  });

  it('the text report names causes and the skipped lines', async () => {
    const { directory } = temporaryFiles('cachet-import-text-');
    const io = captureOutput();
    await runImport(
      'claude-code',
      join(FIXTURES, 'claude-code'),
      { db: join(directory, 't.db'), storeContent: 'hashes' },
      io.output,
    );
    const text = io.out.join('\n');
    expect(text).toContain('6 requests in 2 sessions');
    expect(text).toContain('ttl-expired ×1: 2,300 cached tokens not read');
    expect(text).toContain('skipped 2 lines: 1 not JSON (truncated), 1 not claude-code records');
  });
});

describe('cachet analyze --from', () => {
  it('reads harness logs directly, without a store', async () => {
    const io = captureOutput();
    expect(await runAnalyze(join(FIXTURES, 'codex'), { from: 'codex', json: true }, io.output)).toBe(0);
    expect(JSON.parse(io.out[0]!)).toMatchObject({ requests: 3, cacheReadTokens: 4864 });
    const bad = captureOutput();
    expect(await runAnalyze(join(FIXTURES, 'codex'), { from: 'copilot' }, bad.output)).toBe(2);
  });
});
