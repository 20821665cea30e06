import { openPostgresTraceStore } from './postgres-trace-store.js';
import { DEFAULT_TRACE_DB, openSqliteTraceStore } from './sqlite-trace-store.js';
import { type StoreContent, withStoreContent } from './store-content.js';
import type { TraceStore } from './trace-store.js';

export interface OpenTraceStoreOptions {
  /** How much prompt content events keep when written [full]: see `StoreContent`. */
  storeContent?: StoreContent;
}

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
 * const privateStore = await openTraceStore(undefined, { storeContent: 'hashes' }); // no prompt text
 */
export async function openTraceStore(
  location: string = DEFAULT_TRACE_DB,
  options: OpenTraceStoreOptions = {},
): Promise<TraceStore> {
  const store = isPostgresLocation(location) ? await openPostgresTraceStore(location) : openSqliteTraceStore(location);
  return withStoreContent(store, options.storeContent ?? 'full');
}
