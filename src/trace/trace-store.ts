import type { CacheBreakCause, CachetEvent, EventType, SkillLoadReason } from '../events/catalog.js';
import type { ProviderCacheMissReason } from '../model/usage.js';
import type { CacheFigures, TokenBuckets } from './cache-figures.js';
import type { DeadLetter, DeadLetterEntry } from './dead-letter.js';
import type { MetricSample } from './fleet-metrics.js';
import type { OverviewQuery, OverviewReport, SessionListPage, SessionListQuery } from './overview.js';

export type { CacheFigures, TokenBuckets } from './cache-figures.js';

/** Which backend holds the traces. */
export type TraceBackend = 'sqlite' | 'postgres';

/** Filter shared by event queries and analytics. Times are ms since the epoch, inclusive. */
export interface TraceFilter {
  sessionId?: string;
  model?: string;
  from?: number;
  to?: number;
}

export interface EventQuery {
  sessionId?: string;
  types?: EventType[];
  from?: number;
  to?: number;
  /** Only events with a larger `seq` (within `sessionId`). */
  afterSeq?: number;
  /** At most this many events: 1 to `MAX_EVENT_LIMIT` (10,000, also the default). */
  limit?: number;
}

export interface SessionSummary {
  sessionId: string;
  /** Model of `session.started`, or of the first recorded request. */
  model: string | null;
  provider: string | null;
  strategy: string | null;
  /** Labels of `session.started` (null where the session did not say): where it came from, its client, run, workload, project. */
  source: string | null;
  client: string | null;
  run: string | null;
  workload: string | null;
  project: string | null;
  firstAt: number;
  lastAt: number;
  events: number;
  requests: number;
  cacheBreaks: number;
  tokens: TokenBuckets;
  costUsd: number;
  uncachedCostUsd: number;
  hitRate: number;
}

export interface RequestBreak {
  cause: CacheBreakCause;
  zone: string | null;
  path: string | null;
  missedTokens: number;
  /** The provider's own diagnosis of the miss (Anthropic `diagnostics`), null when it gave none. */
  serverCause: ProviderCacheMissReason | null;
}

/** One request of a session: a `usage.recorded` event with the breaks recorded for the same turn and step. */
export interface RequestSummary {
  sessionId: string;
  /** Position among the session's requests, from 0. */
  index: number;
  seq: number;
  at: number;
  turn: number;
  step: number;
  model: string;
  tokens: TokenBuckets;
  /** Cache read ÷ total input of this request (0 when there was no input). */
  hitRate: number;
  costUsd: number;
  uncachedCostUsd: number;
  breaks: RequestBreak[];
}

export interface SessionCacheFigures extends CacheFigures {
  sessionId: string;
  models: string[];
  /** 1/N for N requests: the write share a healthy session stays at or below. */
  healthyWriteShareLimit: number;
  healthy: boolean;
}

export interface ModelCacheFigures extends CacheFigures {
  model: string;
}

export interface BreakCauseCount {
  cause: CacheBreakCause;
  count: number;
  missedTokens: number;
}

export interface CacheEffectivenessReport {
  filter: TraceFilter;
  overall: CacheFigures;
  sessions: SessionCacheFigures[];
  models: ModelCacheFigures[];
  breaks: BreakCauseCount[];
}

export interface SkillReasonRollup {
  loadReason: SkillLoadReason;
  loads: number;
  loadTokens: number;
  distinctSkills: number;
  sessions: number;
}

export interface SkillRollupRow {
  skillId: string;
  loadReason: SkillLoadReason;
  loads: number;
  loadTokens: number;
}

export interface SkillsReport {
  filter: TraceFilter;
  byReason: SkillReasonRollup[];
  bySkill: SkillRollupRow[];
}

/**
 * Where events are kept. Two implementations: SQLite (default, one file) and PostgreSQL
 * (for agents on many machines); `openTraceStore` picks one from a path or URL.
 */
export interface TraceStore {
  readonly backend: TraceBackend;
  /** Where the store lives, with any password removed. */
  readonly location: string;
  /** Schema version after migrations. */
  readonly schemaVersion: number;
  /** Store one event. Resolves once it is committed. */
  append(event: CachetEvent): Promise<void>;
  /** Store events in one transaction: all are committed or none. */
  appendBatch(events: readonly CachetEvent[]): Promise<void>;
  events(query?: EventQuery): Promise<CachetEvent[]>;
  /** Session summaries, most recent first; `sessionId` answers that one session only. */
  sessions(options?: { limit?: number; offset?: number; sessionId?: string }): Promise<SessionSummary[]>;
  requests(sessionId: string): Promise<RequestSummary[]>;
  cacheEffectiveness(filter?: TraceFilter): Promise<CacheEffectivenessReport>;
  skills(filter?: TraceFilter): Promise<SkillsReport>;
  breakCauses(filter?: TraceFilter): Promise<BreakCauseCount[]>;
  /** Across sessions: spend and savings over time, miss causes by money lost, worst sessions, regret, filter values. */
  overview(query?: OverviewQuery): Promise<OverviewReport>;
  /** A page of sessions matching a filter, with the groups they fall into by one label. */
  sessionList(query?: SessionListQuery): Promise<SessionListPage>;
  /** Every exported metric (requests, tokens by kind, cost, saved, hit rate, breaks by cause) per provider and model. */
  fleetMetrics(): Promise<MetricSample[]>;
  /**
   * Changes whenever events are added (SQLite: the largest event id; PostgreSQL: the largest
   * id and the current second, as concurrent transactions may commit ids out of order). The
   * server reuses an analytics answer only while this is unchanged.
   */
  dataVersion(): Promise<string>;
  /** Keep events that cannot be stored (with why) in `dead_letters`, so they block nothing and are not lost. */
  deadLetter(entries: readonly DeadLetterEntry[]): Promise<void>;
  /** Dead-lettered events, oldest first: at most `limit` (default 1,000) with `id` above `afterId`. */
  deadLetters(options?: { limit?: number; afterId?: number }): Promise<DeadLetter[]>;
  close(): Promise<void>;
}
