import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

// A machine with none of the optional peers: every `isInstalled` answers no.
vi.mock('../../model/optional-dependency.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../model/optional-dependency.js')>()),
  isInstalled: () => false,
}));

// The suite shares modules between files (isolate: false): load them afresh, with the mock.
vi.resetModules();
// And for the files after this one (same worker): the real modules again.
afterAll(() => {
  vi.doUnmock('../../model/optional-dependency.js');
  vi.resetModules();
});
const { runProxy } = await import('./proxy.js');
const { runServe } = await import('./serve.js');
const { runImport } = await import('./import.js');
// Were the check to pass, the store would open here, never outside a temporary directory.
const directory = mkdtempSync(join(tmpdir(), 'cachet-missing-peers-'));
const db = join(directory, 'traces.db');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('a command missing several optional peers', () => {
  it('cachet proxy names hono, @hono/node-server and the SQLite driver in one message', async () => {
    const started = runProxy(
      { upstream: 'anthropic', port: 0, host: '127.0.0.1', db, timeout: 1_000, maxBody: 1_000 },
      { out: () => {}, err: () => {} },
    );
    await expect(started).rejects.toMatchObject({
      code: 'dependency_missing',
      message:
        'cachet proxy needs the optional packages hono @hono/node-server better-sqlite3: npm install hono @hono/node-server better-sqlite3',
    });
  });

  it('names pg instead when the store is PostgreSQL', async () => {
    const started = runProxy(
      { upstream: 'anthropic', port: 0, host: '127.0.0.1', db: 'postgres://cachet@db/cachet', timeout: 1_000, maxBody: 1_000 },
      { out: () => {}, err: () => {} },
    );
    await expect(started).rejects.toMatchObject({ packageName: 'hono @hono/node-server pg' });
  });

  it('cachet serve names every missing package too', async () => {
    await expect(runServe({ db, port: 0, host: '127.0.0.1' }, () => {})).rejects.toMatchObject({
      packageName: 'hono @hono/node-server better-sqlite3',
    });
  });
});

describe('cachet import missing several optional peers', () => {
  // opencode keeps its sessions in opencode.db, read with better-sqlite3: with a PostgreSQL store,
  // both pg and better-sqlite3 are needed, and one run names both (it named pg, then better-sqlite3 on the next run).
  const opencodeData = join(directory, 'opencode');
  mkdirSync(opencodeData);
  writeFileSync(join(opencodeData, 'opencode.db'), '');
  const run = async (harness: string, path: string, store: string) => {
    const err: string[] = [];
    const code = await runImport(
      harness,
      path,
      { db: store, storeContent: 'hashes' },
      { out: () => {}, err: (line) => err.push(line) },
    );
    return { code, err: err.join('\n') };
  };

  it('names pg and better-sqlite3 in one message for opencode.db into PostgreSQL, before reading anything', async () => {
    expect(await run('opencode', opencodeData, 'postgres://cachet@127.0.0.1:1/cachet')).toEqual({
      code: 2,
      err: 'cachet import: reading opencode logs into the trace store needs the optional packages pg better-sqlite3: npm install pg better-sqlite3',
    });
  });

  it('names better-sqlite3 once when it both reads opencode.db and holds the store', async () => {
    const { err } = await run('opencode', join(opencodeData, 'opencode.db'), db);
    expect(err).toContain('needs the optional package better-sqlite3: npm install better-sqlite3');
    expect(existsSync(db)).toBe(false);
  });

  it('names only the store driver for logs that need nothing else', async () => {
    const piSessions = join(directory, 'pi-sessions');
    mkdirSync(piSessions);
    expect((await run('pi', piSessions, 'postgres://cachet@127.0.0.1:1/cachet')).err).toContain('npm install pg');
  });
});
