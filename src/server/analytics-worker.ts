/**
 * Worker thread of `createAnalyticsReader`: answers read queries on its own read-only
 * connection to the SQLite trace file, so a 100 ms aggregate never blocks the server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { requireOptional } from '../model/optional-dependency.js';
import { queryBreakCauses, queryCacheEffectiveness, querySkills } from '../trace/analytics-queries.js';
import { queryFleetMetrics } from '../trace/fleet-metrics.js';
import { queryOverview } from '../trace/overview-queries.js';
import { querySessionList } from '../trace/session-list-queries.js';
import type { SqlRunner } from '../trace/sql-runner.js';
import { queryRequests, querySessions } from '../trace/trace-queries.js';
import type { AnalyticsCall } from './analytics-reader.js';

const { path } = workerData as { path: string };
const SqliteDatabase = requireOptional<typeof Database>('better-sqlite3', 'better-sqlite3', 'The analytics worker');
const database = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
database.pragma('busy_timeout = 10000');
const runner: SqlRunner = {
  dialect: 'sqlite',
  all: async (sql, params) => database.prepare(sql).all(...params) as Record<string, unknown>[],
};

async function answer(call: AnalyticsCall): Promise<unknown> {
  switch (call.method) {
    case 'cacheEffectiveness':
      return queryCacheEffectiveness(runner, call.filter);
    case 'skills':
      return querySkills(runner, call.filter);
    case 'breakCauses':
      return queryBreakCauses(runner, call.filter);
    case 'sessions':
      return querySessions(runner, call.options);
    case 'requests':
      return queryRequests(runner, call.sessionId);
    case 'overview':
      return queryOverview(runner, call.query);
    case 'sessionList':
      return querySessionList(runner, call.query);
    case 'fleetMetrics':
      return queryFleetMetrics(runner);
  }
}

parentPort?.on('message', async (message: { id: number; call: AnalyticsCall }) => {
  try {
    parentPort?.postMessage({ id: message.id, result: await answer(message.call) });
  } catch (error) {
    parentPort?.postMessage({
      id: message.id,
      error: { message: (error as Error).message, code: (error as { code?: string }).code ?? null },
    });
  }
});
