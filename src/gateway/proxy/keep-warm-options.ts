/** `--keep-warm[=budget]`: pre-warm requests for the conversations the proxy has seen, within budgets. */
export interface ProxyKeepWarmOptions {
  /** Most USD all pings of this proxy together may cost [1]. */
  budgetUsd?: number;
  /** Most USD the pings of one conversation may cost [a quarter of `budgetUsd`]. */
  perConversationUsd?: number;
  /** Pings per idle period at most [12: an hour of 5-minute entries]. */
  maxPingsPerIdle?: number;
  /** Timer functions (tests pass a fake clock's) [setTimeout / clearTimeout, unref'd]. */
  timers?: { set(callback: () => void, ms: number): unknown; clear(handle: unknown): void };
}
