/** What the proxy's keep-warm pings did, for `stats()` and the start line. */
export interface KeepWarmStats {
  pingsSent: number;
  pingsFailed: number;
  /** What the sent pings cost, from their own usage, USD. */
  spentUsd: number;
  /** Re-writes the pings avoided (the client came back after the entry would have expired, and read it), USD. */
  savedUsd: number;
  /** Idle periods stopped by a budget. */
  stoppedByBudget: number;
}
