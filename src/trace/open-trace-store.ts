import { openPostgresTraceStore } from './postgres-trace-store.js';
import { DEFAULT_TRACE_DB, openSqliteTraceStore } from './sqlite-trace-store.js';
import type { TraceStore } from './trace-store.js';

/** True for locations that name a PostgreSQL database rather than a SQLite file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Open (and migrate) the trace store at `location`: a `postgres://` or `postgresql://` URL
 * selects PostgreSQL, anything else is a SQLite file path (`:memory:` for a throwaway one).
 * Without a location, SQLite at `.cachet/traces.db` under the working directory.
 *
 * @example
 * const store = await openTraceStore();                                  // .cachet/traces.db
 * const shared = await openTraceStore('postgres://cachet@db/cachet');    // PostgreSQL
 */
export async function openTraceStore(location: string = DEFAULT_TRACE_DB): Promise<TraceStore> {
  if (isPostgresLocation(location)) return openPostgresTraceStore(location);
  return openSqliteTraceStore(location);
}
