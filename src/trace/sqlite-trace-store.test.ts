import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openTraceStore } from './open-trace-store.js';
import { SqliteTraceStore } from './sqlite-trace-store.js';
import { describeTraceStoreContract } from './test-support/trace-store-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'cachet-sqlite-'));
let counter = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeTraceStoreContract('SQLite', () => ({
  async fresh() {
    counter += 1;
    const path = join(directory, `nested-${counter}`, 'traces.db');
    return {
      open: () => openTraceStore(path),
      async exec(sql: string) {
        const database = new Database(path);
        database.exec(sql);
        database.close();
      },
    };
  },
}));

describe('SQLite trace store specifics', () => {
  it('uses WAL journaling and records the migration', async () => {
    const path = join(directory, 'wal.db');
    const store = await openTraceStore(path);
    expect(store).toBeInstanceOf(SqliteTraceStore);
    await store.close();
    const database = new Database(path, { readonly: true });
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(database.prepare('SELECT version, name FROM cachet_migrations').all()).toEqual([
      { version: 1, name: 'events table with aggregated columns' },
      { version: 2, name: 'PostgreSQL columns hold what SQLite accepts; dead_letters table' },
      {
        version: 3,
        name: 'session labels as columns (source, client, run, workload, project, oracle cost); overview indexes',
      },
      {
        version: 4,
        name: 'overview rollups (usage per session, hour and model; breaks with their model; break sums), backfilled',
      },
      { version: 5, name: 'session label indexes (label filters, facets and the session list read them alone)' },
      {
        version: 6,
        name: 'session-grain rollups (totals and labels per session, losses per session and model, cause sums per hour, facets), backfilled, then ANALYZE',
      },
    ]);
    database.close();
  });
});
