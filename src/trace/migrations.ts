import { SESSION_DIMENSIONS } from './overview.js';
import { rollupMigration } from './overview-rollup-schema.js';
import { sessionRollupMigration } from './overview-session-rollup.js';
import type { TraceBackend } from './trace-store.js';
import { TraceStoreError } from './trace-store-error.js';

/**
 * One schema change. Versions only grow; a migration is never edited after release: later
 * changes are new migrations. Each runs in its own transaction and is recorded in
 * `cachet_migrations`.
 */
export interface Migration {
  version: number;
  name: string;
  statements: Record<TraceBackend, string[]>;
}

const tokenColumns = `
  uncached_input_tokens BIGINT,
  cache_read_tokens BIGINT,
  cache_write_5m_tokens BIGINT,
  cache_write_1h_tokens BIGINT,
  output_tokens BIGINT,
  reasoning_tokens BIGINT`;

const sharedIndexes = [
  'CREATE INDEX events_type_at ON events (type, at)',
  'CREATE INDEX events_session_type ON events (session_id, type, seq)',
  'CREATE INDEX events_model_type ON events (model, type)',
];

/** The `session.started` labels the overview groups and filters by (null on every other event). */
function sessionLabelColumns(moneyType: string): string[] {
  return [
    ...['source', 'client', 'run', 'workload', 'project'].map((name) => `ALTER TABLE events ADD COLUMN ${name} TEXT`),
    `ALTER TABLE events ADD COLUMN oracle_cost_usd ${moneyType}`,
  ];
}

/**
 * A break's request is found by session, type, turn and step (to price the break at its model);
 * the overview's per-session and per-bucket sums read usage rows by type and session.
 */
const overviewIndexes = ['CREATE INDEX events_session_turn ON events (session_id, type, turn, step)'];

/**
 * A label filter (`source = ?` on `session.started`) seeks its sessions here instead of reading
 * every session's row of the events table; the facets read each label's values in order.
 */
const SESSION_LABEL_INDEXES = [
  ...[...SESSION_DIMENSIONS, 'model'].map(
    (name) => `CREATE INDEX events_started_${name} ON events (${name}, session_id) WHERE type = 'session.started'`,
  ),
  // The session list and the overview's tables read each listed session's labels from this index alone.
  `CREATE INDEX events_session_labels ON events (session_id, ${SESSION_DIMENSIONS.join(', ')}, model, oracle_cost_usd)
    WHERE type = 'session.started'`,
];

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events table with aggregated columns',
    statements: {
      sqlite: [
        `CREATE TABLE events (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          type TEXT NOT NULL,
          at INTEGER NOT NULL,
          turn INTEGER,
          step INTEGER,
          model TEXT,
          provider TEXT,
          strategy TEXT,${tokenColumns},
          cost_usd REAL,
          uncached_cost_usd REAL,
          cause TEXT,
          missed_tokens INTEGER,
          skill_id TEXT,
          load_reason TEXT,
          load_tokens INTEGER,
          payload TEXT NOT NULL,
          UNIQUE (session_id, seq)
        )`,
        ...sharedIndexes,
      ],
      postgres: [
        `CREATE TABLE events (
          id BIGSERIAL PRIMARY KEY,
          session_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          type TEXT NOT NULL,
          at BIGINT NOT NULL,
          turn INTEGER,
          step INTEGER,
          model TEXT,
          provider TEXT,
          strategy TEXT,${tokenColumns},
          cost_usd DOUBLE PRECISION,
          uncached_cost_usd DOUBLE PRECISION,
          cause TEXT,
          missed_tokens BIGINT,
          skill_id TEXT,
          load_reason TEXT,
          load_tokens BIGINT,
          payload JSON NOT NULL,
          UNIQUE (session_id, seq)
        )`,
        ...sharedIndexes,
      ],
    },
  },
  {
    version: 2,
    name: 'PostgreSQL columns hold what SQLite accepts; dead_letters table',
    statements: {
      // SQLite columns already take 64-bit integers and fractional values (type affinity).
      sqlite: [deadLettersTable('INTEGER PRIMARY KEY AUTOINCREMENT', 'REAL')],
      postgres: [
        // seq and turn/step past 2^31, and sub-millisecond `at` (performance.timeOrigin + performance.now()).
        `ALTER TABLE events
          ALTER COLUMN seq TYPE BIGINT,
          ALTER COLUMN turn TYPE BIGINT,
          ALTER COLUMN step TYPE BIGINT,
          ALTER COLUMN at TYPE DOUBLE PRECISION`,
        deadLettersTable('BIGSERIAL PRIMARY KEY', 'DOUBLE PRECISION'),
      ],
    },
  },
  {
    version: 3,
    name: 'session labels as columns (source, client, run, workload, project, oracle cost); overview indexes',
    statements: {
      sqlite: [...sessionLabelColumns('REAL'), ...overviewIndexes],
      postgres: [...sessionLabelColumns('DOUBLE PRECISION'), ...overviewIndexes],
    },
  },
  {
    version: 4,
    name: 'overview rollups (usage per session, hour and model; breaks with their model; break sums), backfilled',
    statements: { sqlite: rollupMigration('sqlite'), postgres: rollupMigration('postgres') },
  },
  {
    version: 5,
    name: 'session label indexes (label filters, facets and the session list read them alone)',
    statements: { sqlite: SESSION_LABEL_INDEXES, postgres: SESSION_LABEL_INDEXES },
  },
  {
    version: 6,
    name: 'session-grain rollups (totals and labels per session, losses per session and model, cause sums per hour, facets), backfilled, then ANALYZE',
    statements: { sqlite: sessionRollupMigration('sqlite'), postgres: sessionRollupMigration('postgres') },
  },
];

/**
 * Events the store refused (or that could not be validated): kept as escaped JSON text with
 * the reason, so one bad event never blocks the ones behind it and nothing vanishes silently.
 */
function deadLettersTable(idColumn: string, timeColumn: string): string {
  return `CREATE TABLE dead_letters (
    id ${idColumn},
    dead_at ${timeColumn} NOT NULL,
    reason TEXT NOT NULL,
    event TEXT NOT NULL
  )`;
}

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

export const MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS cachet_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/**
 * The migrations a store at schema `current` still needs, oldest first. A schema newer than
 * this Cachet understands is refused rather than guessed at.
 */
export function pendingMigrations(current: number, location: string): Migration[] {
  if (current > LATEST_SCHEMA_VERSION) {
    throw new TraceStoreError(
      'schema_too_new',
      location,
      `schema version ${current} is newer than this Cachet understands (${LATEST_SCHEMA_VERSION}); upgrade Cachet`,
    );
  }
  return MIGRATIONS.filter((migration) => migration.version > current);
}
