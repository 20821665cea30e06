import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceStore } from './open-trace-store.js';
import { PostgresTraceStore, redactPassword } from './postgres-trace-store.js';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayPostgres } from './test-support/throwaway-postgres.js';
import { describeTraceStoreContract } from './test-support/trace-store-contract.js';

const binaries = findPostgresBinaries();
const inCi = process.env.CI === 'true' || process.env.CI === '1';

if (!binaries.found && !inCi) console.warn(`SKIPPED PostgreSQL trace store tests: ${binaries.reason}`);

describe.runIf(!binaries.found && inCi)('PostgreSQL trace store under CI', () => {
  it('needs the PostgreSQL server binaries', () => {
    throw new Error(`CI=true requires PostgreSQL: ${binaries.found ? '' : binaries.reason}`);
  });
});

describe.skipIf(!binaries.found)('PostgreSQL trace store', () => {
  let server: ThrowawayPostgres | undefined;
  let counter = 0;

  beforeAll(async () => {
    if (binaries.found) server = await startThrowawayPostgres(binaries.bindir);
  });
  afterAll(() => server?.stop());

  describeTraceStoreContract('PostgreSQL', () => ({
    async fresh() {
      counter += 1;
      const url = await server!.createDatabase(`contract_${counter}`);
      return {
        open: () => openTraceStore(url),
        async exec(sql: string) {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(sql);
          await client.end();
        },
      };
    },
  }));

  it('is chosen for postgres:// and postgresql:// URLs and migrates once under concurrent opens', async () => {
    const url = await server!.createDatabase('concurrent');
    const stores = await Promise.all([
      openTraceStore(url),
      openTraceStore(url.replace('postgres://', 'postgresql://')),
      openTraceStore(url),
    ]);
    for (const store of stores) expect(store).toBeInstanceOf(PostgresTraceStore);
    await Promise.all(stores.map((store) => store.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT version FROM cachet_migrations ORDER BY version');
    await client.end();
    expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it('reports an unreachable server as store_unavailable without the password', async () => {
    const error = await openTraceStore(`postgres://cachet:hunter2@127.0.0.1:${server!.port}/no_such_database`).catch(
      (caught) => caught,
    );
    expect(error).toMatchObject({ code: 'store_unavailable' });
    expect(String(error.message)).not.toContain('hunter2');
    expect(String(error.message)).toContain('***');
  });
});

describe('redactPassword', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactPassword('postgres://user:secret@db.internal:5432/cachet')).toBe('postgres://user:***@db.internal:5432/cachet');
    expect(redactPassword('postgres://user@db/cachet')).toBe('postgres://user@db/cachet');
  });
});
