import pg from 'pg';
import type { CachetEvent } from '../events/catalog.js';
import { EVENT_COLUMN_NAMES, eventRowValues } from './event-columns.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE_SQL, pendingMigrations } from './migrations.js';
import { type SqlRunner, toPostgresPlaceholders } from './sql-runner.js';
import { SqlTraceStore } from './sql-trace-store.js';
import { duplicateEventError, TraceStoreError } from './trace-store-error.js';

/** PostgreSQL allows 65,535 parameters per statement; stay well below it. */
const ROWS_PER_INSERT = 1000;
/** Any constant works; it only has to be the same for every Cachet process migrating this database. */
const MIGRATION_LOCK_KEY = 4_242_017;

/**
 * Traces in PostgreSQL, for teams whose agents run on many machines and write to one
 * database. Same schema and queries as SQLite; the payload column is `json` (not `jsonb`, which
 * rejects `\u0000` and reorders keys: `json` keeps the text exactly).
 *
 * @example
 * const store = await openPostgresTraceStore('postgres://cachet@db.internal/cachet');
 * await store.appendBatch(events);
 * const report = await store.cacheEffectiveness({ model: 'claude-sonnet-4-5' });
 * await store.close();
 */
export class PostgresTraceStore extends SqlTraceStore {
  readonly backend = 'postgres' as const;
  readonly location: string;
  schemaVersion = 0;
  private readonly pool: pg.Pool;
  protected readonly runner: SqlRunner;
  private closed = false;

  private constructor(connectionString: string) {
    super();
    this.location = redactPassword(connectionString);
    this.pool = new pg.Pool({ connectionString, max: 4 });
    // An idle client losing its connection must not crash the process; the next query reports it.
    this.pool.on('error', () => {});
    this.runner = {
      all: async (sql, params) => (await this.pool.query(toPostgresPlaceholders(sql), params as unknown[])).rows,
    };
  }

  static async open(connectionString: string): Promise<PostgresTraceStore> {
    const store = new PostgresTraceStore(connectionString);
    try {
      store.schemaVersion = await store.migrate();
    } catch (error) {
      await store.pool.end().catch(() => {});
      if (error instanceof TraceStoreError) throw error;
      throw new TraceStoreError(
        'store_unavailable',
        store.location,
        `cannot open the PostgreSQL store (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    return store;
  }

  protected async insertValidated(events: readonly CachetEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.closed) throw new TraceStoreError('store_closed', this.location, 'the store is closed');
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
        const chunk = events.slice(start, start + ROWS_PER_INSERT);
        const width = EVENT_COLUMN_NAMES.length;
        const tuples = chunk.map(
          (_, row) => `(${EVENT_COLUMN_NAMES.map((_column, column) => `$${row * width + column + 1}`).join(', ')})`,
        );
        await client.query(
          `INSERT INTO events (${EVENT_COLUMN_NAMES.join(', ')}) VALUES ${tuples.join(', ')}`,
          chunk.flatMap((event) => eventRowValues(event)),
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code === '23505') throw duplicateEventError(this.location, error);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /**
   * Apply pending migrations under a transaction-scoped advisory lock, so several machines
   * opening the same database at once migrate it exactly once.
   */
  private async migrate(): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(MIGRATIONS_TABLE_SQL);
      const result = await client.query('SELECT MAX(version) AS version FROM cachet_migrations');
      const current = Number(result.rows[0]?.version ?? 0);
      for (const migration of pendingMigrations(current, this.location)) {
        for (const statement of migration.statements.postgres) await client.query(statement);
        await client.query('INSERT INTO cachet_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          Date.now(),
        ]);
      }
      await client.query('COMMIT');
      return Math.max(current, LATEST_SCHEMA_VERSION);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}

export function openPostgresTraceStore(connectionString: string): Promise<PostgresTraceStore> {
  return PostgresTraceStore.open(connectionString);
}

/** `postgres://user:secret@host/db` -> `postgres://user:***@host/db`, for messages and logs. */
export function redactPassword(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return connectionString.replace(/:[^:@/]*@/, ':***@');
  }
}
