import type { CachetEvent } from '../events/catalog.js';
import { queryBreakCauses, queryCacheEffectiveness, querySkills } from './analytics-queries.js';
import { validateEvent } from './event-columns.js';
import type { SqlRunner } from './sql-runner.js';
import { queryEvents, queryRequests, querySessions } from './trace-queries.js';
import type { EventQuery, TraceBackend, TraceFilter, TraceStore } from './trace-store.js';

/**
 * What both backends share: validation before any write, and every read query (portable SQL
 * run through a `SqlRunner`). A backend supplies only its runner, its transactional insert
 * and `close`.
 */
export abstract class SqlTraceStore implements TraceStore {
  abstract readonly backend: TraceBackend;
  abstract readonly location: string;
  abstract readonly schemaVersion: number;
  protected abstract readonly runner: SqlRunner;

  /** Insert already validated events in one transaction. */
  protected abstract insertValidated(events: readonly CachetEvent[]): Promise<void>;
  abstract close(): Promise<void>;

  async append(event: CachetEvent): Promise<void> {
    await this.appendBatch([event]);
  }

  async appendBatch(events: readonly CachetEvent[]): Promise<void> {
    for (const [index, event] of events.entries()) validateEvent(event, `events[${index}]`);
    await this.insertValidated(events);
  }

  events(query?: EventQuery) {
    return queryEvents(this.runner, query);
  }
  sessions(options?: { limit?: number; offset?: number }) {
    return querySessions(this.runner, options);
  }
  requests(sessionId: string) {
    return queryRequests(this.runner, sessionId);
  }
  cacheEffectiveness(filter?: TraceFilter) {
    return queryCacheEffectiveness(this.runner, filter);
  }
  skills(filter?: TraceFilter) {
    return querySkills(this.runner, filter);
  }
  breakCauses(filter?: TraceFilter) {
    return queryBreakCauses(this.runner, filter);
  }
}
