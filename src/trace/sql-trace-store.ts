import type { CachetEvent } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import { queryBreakCauses, queryCacheEffectiveness, querySkills } from './analytics-queries.js';
import { type DeadLetter, type DeadLetterEntry, deadLetterText } from './dead-letter.js';
import { validateEvent } from './event-columns.js';
import { queryFleetMetrics } from './fleet-metrics.js';
import type { OverviewQuery, SessionListQuery } from './overview.js';
import { queryOverview } from './overview-queries.js';
import { querySessionList } from './session-list-queries.js';
import { type SqlRunner, toNumber } from './sql-runner.js';
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
  /** Insert `dead_letters` rows `(dead_at, reason, event)`. */
  protected abstract insertDeadLetters(rows: ReadonlyArray<readonly [number, string, string]>): Promise<void>;
  abstract close(): Promise<void>;

  async append(event: CachetEvent): Promise<void> {
    await this.appendBatch([event]);
  }

  async appendBatch(events: readonly CachetEvent[]): Promise<void> {
    for (const [index, event] of events.entries()) validateEvent(event, `events[${index}]`);
    await this.insertValidated(events);
  }

  async dataVersion(): Promise<string> {
    const rows = await this.runner.all('SELECT MAX(id) AS id FROM events', []);
    return String(rows[0]?.id ?? 0);
  }

  async deadLetter(entries: readonly DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const now = Date.now();
    await this.insertDeadLetters(entries.map((entry) => [now, entry.reason, deadLetterText(entry.event)] as const));
  }

  async deadLetters(options: { limit?: number; afterId?: number } = {}): Promise<DeadLetter[]> {
    const limit = options.limit ?? 1000;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) {
      throw new ValidationError('deadLetters.limit', 'an integer from 1 to 10000', String(limit));
    }
    const rows = await this.runner.all('SELECT id, dead_at, reason, event FROM dead_letters WHERE id > ? ORDER BY id LIMIT ?', [
      options.afterId ?? 0,
      limit,
    ]);
    return rows.map((row) => ({
      id: toNumber(row.id),
      deadAt: toNumber(row.dead_at),
      reason: String(row.reason),
      event: String(row.event),
    }));
  }

  events(query?: EventQuery) {
    return queryEvents(this.runner, query);
  }
  sessions(options?: { limit?: number; offset?: number; sessionId?: string }) {
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
  overview(query?: OverviewQuery) {
    return queryOverview(this.runner, query);
  }
  sessionList(query?: SessionListQuery) {
    return querySessionList(this.runner, query);
  }
  fleetMetrics() {
    return queryFleetMetrics(this.runner);
  }
}
