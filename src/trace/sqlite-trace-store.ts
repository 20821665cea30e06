import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { CachetEvent } from '../events/catalog.js';
import { EVENT_COLUMN_NAMES, eventRowValues } from './event-columns.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE_SQL, pendingMigrations } from './migrations.js';
import type { SqlRunner } from './sql-runner.js';
import { SqlTraceStore } from './sql-trace-store.js';
import { duplicateEventError, TraceStoreError } from './trace-store-error.js';

/** The default trace database, relative to the working directory. */
export const DEFAULT_TRACE_DB = '.cachet/traces.db';

/**
 * Traces in one SQLite file (better-sqlite3). WAL journal with `synchronous = NORMAL`: a
 * committed event survives the process being killed at any moment (it may be lost only
 * if the operating system itself crashes before the next checkpoint). Readers (the
 * dashboard) never block the writer.
 *
 * @example
 * const store = openSqliteTraceStore('.cachet/traces.db');
 * await store.append(event);
 * const sessions = await store.sessions();
 */
export class SqliteTraceStore extends SqlTraceStore {
  readonly backend = 'sqlite' as const;
  readonly location: string;
  readonly schemaVersion: number;
  private readonly database: Database.Database;
  private readonly insert: Database.Statement;
  private readonly insertMany: (events: readonly CachetEvent[]) => void;
  protected readonly runner: SqlRunner;

  constructor(path: string) {
    super();
    this.location = path;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.database = new Database(path);
    } catch (error) {
      throw new TraceStoreError('store_unavailable', path, `cannot open the SQLite database (${(error as Error).message})`, {
        cause: error,
      });
    }
    this.database.pragma('journal_mode = WAL');
    this.database.pragma('synchronous = NORMAL');
    this.database.pragma('busy_timeout = 5000');
    this.schemaVersion = this.migrate();
    this.insert = this.database.prepare(
      `INSERT INTO events (${EVENT_COLUMN_NAMES.join(', ')}) VALUES (${EVENT_COLUMN_NAMES.map(() => '?').join(', ')})`,
    );
    this.insertMany = this.database.transaction((events: readonly CachetEvent[]) => {
      for (const event of events) this.insert.run(...eventRowValues(event));
    });
    this.runner = {
      all: async (sql, params) => this.database.prepare(sql).all(...params) as Record<string, unknown>[],
    };
  }

  protected async insertValidated(events: readonly CachetEvent[]): Promise<void> {
    try {
      this.insertMany(events);
    } catch (error) {
      throw translateError(error, this.location);
    }
  }

  async close(): Promise<void> {
    if (this.database.open) this.database.close();
  }

  /** Apply pending migrations, each in its own transaction. Returns the resulting version. */
  private migrate(): number {
    this.database.exec(MIGRATIONS_TABLE_SQL);
    const current = Number(
      (this.database.prepare('SELECT MAX(version) AS version FROM cachet_migrations').get() as { version: number | null })
        .version ?? 0,
    );
    for (const migration of pendingMigrations(current, this.location)) {
      this.database.transaction(() => {
        for (const statement of migration.statements.sqlite) this.database.exec(statement);
        this.database
          .prepare('INSERT INTO cachet_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(migration.version, migration.name, Date.now());
      })();
    }
    return Math.max(current, LATEST_SCHEMA_VERSION);
  }
}

function translateError(error: unknown, location: string): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return duplicateEventError(location, error);
  if (code === 'SQLITE_CONSTRAINT_NOTNULL' || code === undefined) return error;
  return new TraceStoreError('store_unavailable', location, (error as Error).message, { cause: error });
}

export function openSqliteTraceStore(path: string = DEFAULT_TRACE_DB): SqliteTraceStore {
  return new SqliteTraceStore(path);
}
