import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { MetricSample } from '../trace/fleet-metrics.js';
import type { OverviewQuery, OverviewReport, SessionListPage, SessionListQuery } from '../trace/overview.js';
import type {
  BreakCauseCount,
  CacheEffectivenessReport,
  RequestSummary,
  SessionSummary,
  SkillsReport,
  TraceFilter,
  TraceStore,
} from '../trace/trace-store.js';
import { TraceStoreError } from '../trace/trace-store-error.js';

/** The read queries the server answers. */
export type AnalyticsReader = Pick<
  TraceStore,
  'cacheEffectiveness' | 'skills' | 'breakCauses' | 'sessions' | 'requests' | 'overview' | 'sessionList' | 'fleetMetrics'
> & {
  close(): Promise<void>;
};

/** One query, as sent to the worker. */
export type AnalyticsCall =
  | { method: 'cacheEffectiveness' | 'skills' | 'breakCauses'; filter: TraceFilter }
  | { method: 'sessions'; options: { limit?: number; offset?: number; sessionId?: string } }
  | { method: 'requests'; sessionId: string }
  | { method: 'overview'; query: OverviewQuery }
  | { method: 'sessionList'; query: SessionListQuery }
  | { method: 'fleetMetrics' };

/**
 * Where the server runs its read queries. better-sqlite3 is synchronous: an aggregate over
 * 50,000 events takes ~100 ms, during which the event loop could serve nothing (not even the
 * dashboard's static files). For a SQLite file the queries therefore run in a worker thread
 * with its own read-only connection (WAL: it never blocks writers). PostgreSQL queries already
 * run in the database server, and `:memory:` stores cannot be shared: both are read directly.
 */
export function createAnalyticsReader(store: TraceStore): AnalyticsReader {
  if (store.backend !== 'sqlite' || store.location === ':memory:') {
    return {
      cacheEffectiveness: (filter) => store.cacheEffectiveness(filter),
      skills: (filter) => store.skills(filter),
      breakCauses: (filter) => store.breakCauses(filter),
      sessions: (options) => store.sessions(options),
      requests: (sessionId) => store.requests(sessionId),
      overview: (query) => store.overview(query),
      sessionList: (query) => store.sessionList(query),
      fleetMetrics: () => store.fleetMetrics(),
      close: async () => {},
    };
  }
  return new WorkerAnalyticsReader(store.location);
}

class WorkerAnalyticsReader implements AnalyticsReader {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor(location: string) {
    this.worker = startWorker(location);
    this.worker.unref();
    this.worker.on('message', (message: { id: number; result?: unknown; error?: { message: string; code: string | null } }) => {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.error) call.reject(new TraceStoreError('store_unavailable', location, message.error.message));
      else call.resolve(message.result);
    });
    const failAll = (error: Error) => {
      this.failure = error;
      for (const call of this.pending.values()) call.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', (error: Error) =>
      failAll(new TraceStoreError('store_unavailable', location, `analytics worker failed: ${error.message}`, { cause: error })),
    );
    this.worker.on('exit', () => failAll(new TraceStoreError('store_closed', location, 'analytics worker stopped')));
  }

  cacheEffectiveness(filter: TraceFilter = {}) {
    return this.call<CacheEffectivenessReport>({ method: 'cacheEffectiveness', filter });
  }
  skills(filter: TraceFilter = {}) {
    return this.call<SkillsReport>({ method: 'skills', filter });
  }
  breakCauses(filter: TraceFilter = {}) {
    return this.call<BreakCauseCount[]>({ method: 'breakCauses', filter });
  }
  sessions(options: { limit?: number; offset?: number; sessionId?: string } = {}) {
    return this.call<SessionSummary[]>({ method: 'sessions', options });
  }
  requests(sessionId: string) {
    return this.call<RequestSummary[]>({ method: 'requests', sessionId });
  }
  overview(query: OverviewQuery = {}) {
    return this.call<OverviewReport>({ method: 'overview', query });
  }
  sessionList(query: SessionListQuery = {}) {
    return this.call<SessionListPage>({ method: 'sessionList', query });
  }
  fleetMetrics() {
    return this.call<MetricSample[]>({ method: 'fleetMetrics' });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private call<T>(call: AnalyticsCall): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, call });
    });
  }
}

/** The worker's own module: compiled `.js` next to this file, or the `.ts` source under tsx/vitest. */
function startWorker(path: string): Worker {
  const compiled = new URL('./analytics-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, { workerData: { path } });
  // Running from source (tsx, vitest): register tsx's loader inside the worker, then load the TypeScript module.
  const source = new URL('./analytics-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: { path } });
}
