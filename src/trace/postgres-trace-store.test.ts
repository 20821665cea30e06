import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { openTraceStore } from './open-trace-store.js';
import { PostgresTraceStore, redactPassword } from './postgres-trace-store.js';
import { recordEvents } from './record-events.js';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayPostgres } from './test-support/throwaway-postgres.js';
import { describeTraceStoreContract } from './test-support/trace-store-contract.js';

const binaries = findPostgresBinaries();
const inCi = process.env.CI === 'true' || process.env.CI === '1';

if (!binaries.found && !inCi) console.warn(`SKIPPED PostgreSQL trace store tests: ${binaries.reason}`);

// Registered only when it applies, so a run with the binaries reports nothing skipped.
if (!binaries.found && inCi) {
  describe('PostgreSQL trace store under CI', () => {
    it('needs the PostgreSQL server binaries', () => {
      throw new Error(`CI=true requires PostgreSQL: ${binaries.reason}`);
    });
  });
}

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
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }]);
  });

  it('survives `pg_ctl stop -m immediate` and a restart while events flow: no crash, nothing lost', async () => {
    const url = await server!.createDatabase('restart');
    const store = await openTraceStore(url);
    const bus = new EventBus();
    const errors: string[] = [];
    const recorder = recordEvents(bus, store, {
      batchSize: 20,
      retryDelay: { initialMs: 20, maxMs: 200 },
      onError: (error) => {
        errors.push((error as Error).message);
      },
    });
    // Unhandled 'error' events would surface here (vitest fails the run on an uncaught exception).
    let turn = 0;
    const publish = (count: number) => {
      for (let index = 0; index < count; index += 1) bus.emit('turn.started', 'restart', turn, { turn: turn++ });
    };
    publish(200);
    await recorder.flush();
    publish(50);
    server!.crash();
    publish(300);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recorder.stats.retrying).toBe(true);
    server!.start();
    publish(50);
    await recorder.stop();
    const stored = await store.events({ sessionId: 'restart' });
    expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 600 }, (_, index) => index));
    expect(errors.length).toBeGreaterThan(0);
    expect(recorder.stats).toMatchObject({ written: 600, dropped: 0, deadLettered: 0 });
    await store.close();
  });

  it('dead-letters text PostgreSQL cannot hold (NUL) and keeps writing', async () => {
    const store = await openTraceStore(await server!.createDatabase('nul'));
    const bus = new EventBus();
    const recorder = recordEvents(bus, store);
    bus.emit('turn.started', 'a\u0000b', 1, { turn: 1 });
    bus.emit('turn.started', 'fine', 2, { turn: 1 });
    await recorder.stop();
    expect((await store.events()).map((event) => event.sessionId)).toEqual(['fine']);
    const [letter] = await store.deadLetters();
    expect(JSON.parse(letter!.event).sessionId).toBe('a\u0000b');
    await store.close();
  });

  it('never shows a password containing a raw / or @ in an error message', async () => {
    for (const password of ['se/cr@t', 'a/b', 'p%2Fq']) {
      const error = await openTraceStore(`postgres://cachet:${password}@127.0.0.1:${server!.port}/nowhere`).catch(
        (caught: Error) => caught,
      );
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(String((error as Error).message), password).not.toContain(password);
      expect(String((error as Error).message)).toContain('***');
    }
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
    expect(redactPassword('postgres://user:se/cr@t@db:5432/cachet')).toBe('postgres://user:***@db:5432/cachet');
  });
});
