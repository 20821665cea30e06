import type { CacheFigures, TokenBuckets } from './cache-figures.js';

/** Sums of the `usage.recorded` columns over some set of requests. */
export interface UsageSums {
  requests: number;
  uncachedInput: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
  costUsd: number;
  uncachedCostUsd: number;
  firstAt: number | null;
  lastAt: number | null;
}

export const ZERO_SUMS: UsageSums = {
  requests: 0,
  uncachedInput: 0,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  output: 0,
  costUsd: 0,
  uncachedCostUsd: 0,
  firstAt: null,
  lastAt: null,
};

export function addSums(left: UsageSums, right: UsageSums): UsageSums {
  return {
    requests: left.requests + right.requests,
    uncachedInput: left.uncachedInput + right.uncachedInput,
    cacheRead: left.cacheRead + right.cacheRead,
    cacheWrite5m: left.cacheWrite5m + right.cacheWrite5m,
    cacheWrite1h: left.cacheWrite1h + right.cacheWrite1h,
    output: left.output + right.output,
    costUsd: left.costUsd + right.costUsd,
    uncachedCostUsd: left.uncachedCostUsd + right.uncachedCostUsd,
    firstAt: minNullable(left.firstAt, right.firstAt),
    lastAt: maxNullable(left.lastAt, right.lastAt),
  };
}

export function tokenBuckets(
  sums: Omit<UsageSums, 'requests' | 'costUsd' | 'uncachedCostUsd' | 'firstAt' | 'lastAt'>,
): TokenBuckets {
  const cacheWrite = sums.cacheWrite5m + sums.cacheWrite1h;
  return {
    uncachedInput: sums.uncachedInput,
    cacheRead: sums.cacheRead,
    cacheWrite5m: sums.cacheWrite5m,
    cacheWrite1h: sums.cacheWrite1h,
    cacheWrite,
    output: sums.output,
    totalInput: sums.uncachedInput + sums.cacheRead + cacheWrite,
  };
}

/** `part ÷ whole`, 0 when there is nothing to divide. */
export function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

/**
 * Cache figures from summed usage: hit rate = read ÷ total input, write share = written ÷
 * total input, savings = what the requests would have cost uncached minus what they cost.
 */
export function cacheFigures(sums: UsageSums): CacheFigures {
  const tokens = tokenBuckets(sums);
  return {
    requests: sums.requests,
    tokens,
    hitRate: ratio(tokens.cacheRead, tokens.totalInput),
    cacheWriteShare: ratio(tokens.cacheWrite, tokens.totalInput),
    costUsd: sums.costUsd,
    uncachedCostUsd: sums.uncachedCostUsd,
    savingsUsd: sums.uncachedCostUsd - sums.costUsd,
    firstAt: sums.firstAt,
    lastAt: sums.lastAt,
  };
}

/**
 * A session is healthy when it wrote at most 1/N of its input to the cache over N requests:
 * the prefix was written about once and read afterwards. A tiny tolerance absorbs rounding.
 */
export function healthyWriteShareLimit(requests: number): number {
  return requests > 0 ? 1 / requests : 1;
}

export function isHealthyWriteShare(cacheWriteShare: number, requests: number): boolean {
  return cacheWriteShare <= healthyWriteShareLimit(requests) + 1e-9;
}

function minNullable(left: number | null, right: number | null): number | null {
  if (left === null) return right;
  if (right === null) return left;
  return Math.min(left, right);
}

function maxNullable(left: number | null, right: number | null): number | null {
  if (left === null) return right;
  if (right === null) return left;
  return Math.max(left, right);
}
