import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { CachetEvent } from '../events/catalog.js';
import { requireOptional } from '../model/optional-dependency.js';
import { EVENT_COLUMN_NAMES, eventRowValues } from './event-columns.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS_TABLE_SQL, pendingMigrations } from './migrations.js';
import { rollupMaintenance } from './overview-rollup.js';
import type { SqlRunner } from './sql-runner.js';
import { SqlTraceStore } from './sql-trace-store.js';
import { duplicateEventError, TraceStoreError } from './trace-store-error.js';

/** The default trace database, relative to the working directory. */
export const DEFAULT_TRACE_DB = '.cachet/traces.db';

/** How long a connection waits for another process's lock (opening, migrating, writing) before failing. */
const BUSY_TIMEOUT_MS = 10_000;

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
  private readonly insertMany: (events: readonly CachetEvent[]) => void;
  private readonly insertDeadLetterRows: (rows: ReadonlyArray<readonly [number, string, string]>) => void;
  protected readonly runner: SqlRunner;

  constructor(path: string) {
    super();
    this.location = path;
    let opened: { database: Database.Database; schemaVersion: number } | undefined;
    for (let attempt = 1; !opened; attempt += 1) {
      try {
        opened = openAndMigrate(path);
      } catch (error) {
        // The busy timeout covers most waits; a few lock steps (switching a fresh file to WAL while
        // another process does the same) report SQLITE_BUSY at once. Those are retried, briefly.
        if (!isBusy(error) || attempt >= OPEN_ATTEMPTS) throw openError(error, path);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * attempt);
      }
    }
    this.database = opened.database;
    this.schemaVersion = opened.schemaVersion;
    const insert = this.database.prepare(
      `INSERT INTO events (${EVENT_COLUMN_NAMES.join(', ')}) VALUES (${EVENT_COLUMN_NAMES.map(() => '?').join(', ')})`,
    );
    const rollupStatement = preparedStatements(this.database);
    this.insertMany = this.database.transaction((events: readonly CachetEvent[]) => {
      for (const event of events) insert.run(...eventRowValues(event));
      const sessionsWithoutBreaks = sessionsWithoutBreaksOf(events, rollupStatement);
      for (const statement of rollupMaintenance('sqlite', events, { sessionsWithoutBreaks })) {
        rollupStatement(statement.sql).run(...statement.params);
      }
    });
    const insertDeadLetter = this.database.prepare('INSERT INTO dead_letters (dead_at, reason, event) VALUES (?, ?, ?)');
    this.insertDeadLetterRows = this.database.transaction((rows: ReadonlyArray<readonly [number, string, string]>) => {
      for (const row of rows) insertDeadLetter.run(...row);
    });
    this.runner = {
      dialect: 'sqlite',
      all: async (sql, params) => {
        try {
          return this.database.prepare(sql).all(...params) as Record<string, unknown>[];
        } catch (error) {
          throw translateError(error, this.location);
        }
      },
    };
  }

  protected async insertValidated(events: readonly CachetEvent[]): Promise<void> {
    try {
      this.insertMany(events);
    } catch (error) {
      throw translateError(error, this.location);
    }
  }

  protected async insertDeadLetters(rows: ReadonlyArray<readonly [number, string, string]>): Promise<void> {
    try {
      this.insertDeadLetterRows(rows);
    } catch (error) {
      throw translateError(error, this.location);
    }
  }

  async close(): Promise<void> {
    if (this.database.open) this.database.close();
  }
}

/**
 * The batch's usage sessions without a stored break, read in the insert's transaction: most
 * requests belong to sessions that never broke, and one indexed read spares the seven rollup
 * statements that would recompute their (empty) break sums.
 */
function sessionsWithoutBreaksOf(events: readonly CachetEvent[], statement: (sql: string) => Database.Statement): Set<string> {
  const sessions = new Set<string>();
  for (const event of events) if (event.type === 'usage.recorded') sessions.add(event.sessionId);
  const ids = [...sessions];
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    const broken = statement(
      `SELECT DISTINCT session_id FROM overview_breaks WHERE session_id IN (${chunk.map(() => '?').join(', ')})`,
    )
      .pluck()
      .all(...chunk) as string[];
    for (const sessionId of broken) sessions.delete(sessionId);
  }
  return sessions;
}

const OPEN_ATTEMPTS = 10;

/** Distinct statement texts kept prepared (the rollups' texts differ only by their number of rows). */
const PREPARED_STATEMENTS = 64;

/**
 * `database.prepare`, remembered by SQL text: preparing costs more than running the rollups'
 * statements for one batch, and a proxy writes a batch every few requests. The least recently
 * used text is forgotten beyond `PREPARED_STATEMENTS`.
 */
function preparedStatements(database: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (statement) prepared.delete(sql);
    else statement = database.prepare(sql);
    prepared.set(sql, statement);
    if (prepared.size > PREPARED_STATEMENTS) prepared.delete(prepared.keys().next().value as string);
    return statement;
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_') === true || code === 'SQLITE_LOCKED';
}

/**
 * Open the file, switch it to WAL and apply pending migrations. The version check and the
 * migrations run in one IMMEDIATE transaction: several processes opening a fresh file at once
 * queue on the write lock, and the ones after the first find the schema already there.
 */
function openAndMigrate(path: string): { database: Database.Database; schemaVersion: number } {
  // The driver first: without it no directory is made (the demo left an empty .cachet/ behind).
  const SqliteDatabase = requireOptional<typeof Database>('better-sqlite3', 'better-sqlite3', 'The SQLite trace store');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  try {
    // Before anything else: switching to WAL and migrating wait for other processes opening the same file.
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    const schemaVersion = database
      .transaction(() => {
        database.exec(MIGRATIONS_TABLE_SQL);
        const current = Number(
          (database.prepare('SELECT MAX(version) AS version FROM cachet_migrations').get() as { version: number | null })
            .version ?? 0,
        );
        for (const migration of pendingMigrations(current, path)) {
          for (const statement of migration.statements.sqlite) database.exec(statement);
          database
            .prepare('INSERT INTO cachet_migrations (version, name, applied_at) VALUES (?, ?, ?)')
            .run(migration.version, migration.name, Date.now());
        }
        return Math.max(current, LATEST_SCHEMA_VERSION);
      })
      .immediate();
    return { database, schemaVersion };
  } catch (error) {
    database.close();
    throw error;
  }
}

/** Why a SQLite file could not be opened, as a `TraceStoreError` naming the path. */
function openError(error: unknown, path: string): unknown {
  if (error instanceof TraceStoreError) return error;
  const code = (error as { code?: string }).code;
  const reason =
    code === 'ENOTDIR'
      ? 'a parent of this path is a regular file, not a directory'
      : code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
        ? 'the file is not a SQLite database, or is corrupt or truncated'
        : (error as Error).message;
  return new TraceStoreError('store_unavailable', path, `cannot open the SQLite trace store: ${reason}`, { cause: error });
}

function translateError(error: unknown, location: string): unknown {
  if (error instanceof TraceStoreError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return duplicateEventError(location, error);
  // A value SQLite refuses (constraint, too big, a binding it cannot take): this event, not the store.
  if (code?.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_TOOBIG' || code === 'SQLITE_MISMATCH' || code === undefined) {
    return new TraceStoreError('rejected_event', location, `SQLite refused the event (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new TraceStoreError('store_unavailable', location, 'the SQLite file is corrupt or truncated', { cause: error });
  }
  return new TraceStoreError('store_unavailable', location, (error as Error).message, { cause: error });
}

export function openSqliteTraceStore(path: string = DEFAULT_TRACE_DB): SqliteTraceStore {
  return new SqliteTraceStore(path);
}
