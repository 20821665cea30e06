export interface TokenBuckets {
  uncachedInput: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  /** 5-minute and 1-hour writes together. */
  cacheWrite: number;
  output: number;
  /** Uncached + read + written: every input token. */
  totalInput: number;
}

export interface CacheFigures {
  requests: number;
  tokens: TokenBuckets;
  /** Cache read ÷ total input. */
  hitRate: number;
  /** Cache write ÷ total input. Healthy sessions stay at or below 1/N for N requests. */
  cacheWriteShare: number;
  costUsd: number;
  /** What the same requests would have cost with no caching at all. */
  uncachedCostUsd: number;
  /** `uncachedCostUsd - costUsd` (negative when writes cost more than reads saved). */
  savingsUsd: number;
  firstAt: number | null;
  lastAt: number | null;
}
