import type { CacheBreakCause } from '../events/catalog.js';
import type { CacheFigures } from './cache-figures.js';

/** The session labels the overview filters and groups by (columns of `session.started`). */
export const SESSION_DIMENSIONS = ['source', 'client', 'provider', 'strategy', 'run', 'workload', 'project'] as const;
export type SessionDimension = (typeof SESSION_DIMENSIONS)[number];

/**
 * Which requests the overview counts. Label filters keep sessions whose `session.started`
 * carries that label; `model` keeps requests (and the breaks of requests) sent to that model;
 * `from`/`to` (epoch ms, inclusive) bound each request's and break's time.
 */
export type OverviewFilter = Partial<Record<SessionDimension, string>> & { model?: string; from?: number; to?: number };

export type OverviewBucket = 'hour' | 'day';

/**
 * Where the overview reads its sums: the rollups kept on insert (`rollup`, the default), or
 * the events themselves (`events`: the raw aggregation, kept as the rollups' reference in tests
 * and the benchmark's yardstick). Both give the same rows.
 */
export type OverviewSource = 'rollup' | 'events';

export interface OverviewQuery extends OverviewFilter {
  /** Time bucket of the series; default: hours when the requests span at most 3 days, else days. */
  bucket?: OverviewBucket;
}

/** One time bucket: the requests whose time falls in `[at, at + bucket)` (UTC). */
export interface OverviewPoint extends Omit<CacheFigures, 'firstAt' | 'lastAt'> {
  at: number;
}

/** A break as an example of its cause: open its session at `turn`.`step`. */
export interface BreakExample {
  sessionId: string;
  at: number;
  turn: number;
  step: number;
  missedTokens: number;
  lostUsd: number;
}

/**
 * A miss cause and the money it lost: each break's missed tokens at its request's model's
 * input price minus its cache-read price (what reading them would have saved).
 */
export interface MissCauseLoss {
  cause: CacheBreakCause;
  breaks: number;
  missedTokens: number;
  lostUsd: number;
  /** The costliest breaks of this cause (at most 3). */
  examples: BreakExample[];
}

/** A session's labels as stored on its `session.started` (null where unknown). */
export type SessionLabelValues = Record<SessionDimension, string | null> & { model: string | null };

export interface SessionLoss extends SessionLabelValues {
  sessionId: string;
  breaks: number;
  missedTokens: number;
  lostUsd: number;
}

export interface SessionRegret extends SessionLabelValues {
  sessionId: string;
  costUsd: number;
  oracleCostUsd: number;
  /** cost ÷ the oracle's − 1: 0 is the best run the provider allowed. */
  regret: number;
}

/** The values each filter can take (at most 200 each, sorted), for the dashboard's selectors. */
export type OverviewFacets = Record<SessionDimension | 'model', string[]>;

export interface OverviewReport {
  filter: OverviewFilter;
  bucket: OverviewBucket;
  totals: CacheFigures;
  series: OverviewPoint[];
  /** Ranked by money lost, then breaks. */
  causes: MissCauseLoss[];
  /** The 10 sessions that lost most to misses. */
  worstSessions: SessionLoss[];
  /** Where the oracle's cost is known (simulations): the 5 lowest and 5 highest regrets. */
  regret: { best: SessionRegret[]; worst: SessionRegret[] };
  /** Models of breaks that no price row covers: their losses count as 0. */
  unpricedModels: string[];
  facets: OverviewFacets;
}

export const SESSION_SORTS = ['recent', 'lost', 'cost', 'regret'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

export interface SessionListQuery extends OverviewFilter {
  /** Group the matching sessions by this label (default `run`). */
  groupBy?: SessionDimension | 'model';
  sort?: SessionSort;
  /** 1 to 500 (default 50). */
  limit?: number;
  offset?: number;
}

export interface SessionListRow extends SessionLabelValues, Omit<CacheFigures, 'firstAt' | 'lastAt'> {
  sessionId: string;
  firstAt: number;
  lastAt: number;
  breaks: number;
  lostUsd: number;
  oracleCostUsd: number | null;
  regret: number | null;
}

export interface SessionGroup {
  /** The label's value; null for sessions without it. */
  key: string | null;
  sessions: number;
  requests: number;
  costUsd: number;
  uncachedCostUsd: number;
  savingsUsd: number;
  hitRate: number;
  lostUsd: number;
}

export interface SessionListPage {
  filter: OverviewFilter;
  groupBy: SessionDimension | 'model';
  sort: SessionSort;
  /** Up to 100 groups, costliest first. */
  groups: SessionGroup[];
  /** Sessions matching the filter (all pages). */
  total: number;
  limit: number;
  offset: number;
  sessions: SessionListRow[];
}
