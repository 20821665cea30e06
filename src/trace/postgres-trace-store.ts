import type pg from 'pg';
import type { CachetEvent } from '../events/catalog.js';
import { requireOptional } from '../model/optional-dependency.js';
import { EVENT_COLUMN_NAMES, eventRowValues } from './event-columns.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE_SQL, pendingMigrations } from './migrations.js';
import { rollupMaintenance } from './overview-rollup.js';
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
  private readonly secret: string | null;
  private closed = false;

  private constructor(connectionString: string) {
    super();
    this.location = redactPassword(connectionString);
    this.secret = passwordOf(connectionString);
    const postgres = requireOptional<typeof pg>('pg', 'pg', 'The PostgreSQL trace store');
    this.pool = new postgres.Pool({ connectionString, max: 4, connectionTimeoutMillis: 10_000 });
    // A client losing its connection (server restarted, network cut) emits 'error'; unhandled, that
    // would crash the host process. The pool replaces dead clients; the next query reports the outage.
    this.pool.on('error', () => {});
    this.runner = {
      dialect: 'postgres',
      all: async (sql, params) => {
        try {
          return (await this.pool.query(toPostgresPlaceholders(sql), params as unknown[])).rows;
        } catch (error) {
          throw this.translateError(error);
        }
      },
    };
  }

  static async open(connectionString: string): Promise<PostgresTraceStore> {
    const store = new PostgresTraceStore(connectionString);
    try {
      store.schemaVersion = await store.migrate();
    } catch (error) {
      await store.pool.end().catch(() => {});
      if (error instanceof TraceStoreError) throw error;
      const detail =
        (error as { code?: string }).code === 'ERR_INVALID_URL'
          ? 'the URL cannot be parsed; percent-encode special characters of the password (/ as %2F, @ as %40)'
          : store.redact((error as Error).message);
      throw new TraceStoreError('store_unavailable', store.location, `cannot open the PostgreSQL store (${detail})`, {
        cause: error,
      });
    }
    return store;
  }

  /** Ids are assigned before commit, so a smaller id may appear later: cached answers live at most a second. */
  override async dataVersion(): Promise<string> {
    return `${await super.dataVersion()}@${Math.floor(Date.now() / 1000)}`;
  }

  protected async insertValidated(events: readonly CachetEvent[]): Promise<void> {
    if (events.length === 0) return;
    const width = EVENT_COLUMN_NAMES.length;
    await this.inTransaction(async (client) => {
      for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
        const chunk = events.slice(start, start + ROWS_PER_INSERT);
        const tuples = chunk.map(
          (_, row) => `(${EVENT_COLUMN_NAMES.map((_column, column) => `$${row * width + column + 1}`).join(', ')})`,
        );
        await client.query(
          `INSERT INTO events (${EVENT_COLUMN_NAMES.join(', ')}) VALUES ${tuples.join(', ')}`,
          chunk.flatMap((event) => eventRowValues(event)),
        );
      }
      for (const statement of rollupMaintenance('postgres', events)) {
        await client.query(toPostgresPlaceholders(statement.sql), statement.params);
      }
    });
  }

  protected async insertDeadLetters(rows: ReadonlyArray<readonly [number, string, string]>): Promise<void> {
    await this.inTransaction(async (client) => {
      for (const row of rows) {
        // PostgreSQL text cannot hold NUL; the event text is JSON (NUL escaped), the reason may not be.
        await client.query('INSERT INTO dead_letters (dead_at, reason, event) VALUES ($1, $2, $3)', [
          row[0],
          row[1].replaceAll('\u0000', '\\u0000'),
          row[2],
        ]);
      }
    });
  }

  /**
   * Run `body` in a transaction on one pooled client. A checked-out client whose connection
   * dies emits 'error' outside any query: it is caught here, and the client is destroyed
   * rather than returned to the pool.
   */
  private async inTransaction(body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    if (this.closed) throw new TraceStoreError('store_closed', this.location, 'the store is closed');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.translateError(error);
    }
    let broken: Error | undefined;
    const onClientError = (error: Error) => {
      broken = error;
    };
    client.on('error', onClientError);
    try {
      await client.query('BEGIN');
      await body(client);
      await client.query('COMMIT');
    } catch (error) {
      if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => {});
      else broken ??= error as Error;
      throw this.translateError(error);
    } finally {
      client.off('error', onClientError);
      client.release(broken);
    }
  }

  private translateError(error: unknown): unknown {
    if (error instanceof TraceStoreError) return error;
    const code = (error as { code?: string }).code;
    if (code === '23505') return duplicateEventError(this.location, error);
    // Class 22 (data exception: out of range, NUL in text...) and 23 (integrity): the event, not the store.
    if (code && /^2[23]/.test(code)) {
      return new TraceStoreError(
        'rejected_event',
        this.location,
        `PostgreSQL refused the event (${this.redact((error as Error).message)})`,
        {
          cause: error,
        },
      );
    }
    return new TraceStoreError('store_unavailable', this.location, this.redact((error as Error).message), { cause: error });
  }

  /** Remove the password from any message a driver produced. */
  private redact(message: string): string {
    if (!this.secret) return message;
    let result = message;
    for (const form of new Set([this.secret, safeDecode(this.secret)])) {
      if (form) result = result.split(form).join('***');
    }
    return result;
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
    const onClientError = () => {};
    client.on('error', onClientError);
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
      client.off('error', onClientError);
      client.release();
    }
  }
}

/** Errors after which the connection is gone (server restart, network), not a statement failure. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  if (code === undefined) return true;
  // 57P01-57P03: admin shutdown, crash shutdown, cannot connect now; class 08: connection exception.
  return /^(57P0|08)/.test(code) || /^E[A-Z]+$/.test(code);
}

export function openPostgresTraceStore(connectionString: string): Promise<PostgresTraceStore> {
  return PostgresTraceStore.open(connectionString);
}

/** The userinfo password of a URL, as written (a raw `/` or `@` in it included); null without one. */
function passwordOf(connectionString: string): string | null {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:(.*)@[^@]*$/i.exec(connectionString);
  return match?.[1] ? match[1] : null;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `postgres://user:secret@host/db` -> `postgres://user:***@host/db`, for messages and logs.
 * The password runs to the last `@`, so a raw `/` or `@` inside it (an unencoded URL) is
 * hidden too.
 */
export function redactPassword(connectionString: string): string {
  const password = passwordOf(connectionString);
  if (password === null) return connectionString;
  const at = connectionString.lastIndexOf('@');
  const colon = at - password.length - 1;
  return `${connectionString.slice(0, colon + 1)}***${connectionString.slice(at)}`;
}
