import { mkdtempSync, rmSync } from 'node:fs';
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
