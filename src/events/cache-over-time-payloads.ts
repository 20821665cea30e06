/**
 * Payloads of the events about the cache between and beside requests: keep-warm pings, the
 * summariser's fork-or-fresh choice, and volatile system text moved into the turn tail. Part of
 * the event catalog (`catalog.ts` re-exports them); documented in docs/events.md.
 */

/** A pre-warm request Cachet's keep-warm sent (through the user's `send`) to keep a cache entry alive. */
export interface CacheKeepalivePayload {
  provider: string;
  model: string;
  /** 1 for the idle period's first ping. */
  ping: number;
  /** Tokens of the prefix the ping reads (and so refreshes). */
  prefixTokens: number;
  /** What the ping is expected to cost (a read of the prefix and its own few tokens), USD; null when unpriced. */
  costUsd: number | null;
  /** Pings' cost so far in this idle period, USD (null when unpriced). */
  spentUsd: number | null;
  /** The plan's expected saving for the idle period against letting the entry expire, USD (null when unpriced). */
  expectedSavingUsd: number | null;
  /** False when `send` failed (the conversation is unaffected; the failure is in `error`). */
  sent: boolean;
  error: string | null;
}

/**
 * The LLM summariser chose how to make a compaction summary: a cache-safe fork on the main model
 * (reads the parent's cache) or a fresh call on the auxiliary model, by expected cost.
 */
export interface CompactionSummarizedPayload {
  /** The summariser's name (`llm:claude-haiku-4-5`). */
  summarizer: string;
  /** `fork`, `fresh`, or `none` when neither call fits its window (the extractive summary is used). */
  choice: 'fork' | 'fresh' | 'none';
  /** The model the summary call goes to (null when none). */
  model: string | null;
  /** Whether the parent's cache entry was judged alive (its last request within the TTL, same model). */
  parentWarm: boolean;
  /** Tokens of the parent's prefix the fork repeats, and of the fresh call's prompt. */
  prefixTokens: number;
  freshPromptTokens: number;
  /** Thinking tokens the fork's price includes (a thinking parent's fork thinks too; 0 without thinking). */
  forkThinkingTokens: number;
  /** Expected cost of each way, input and output (the fork's thinking included), and of its input alone, USD (null when unpriced or too big). */
  forkCostUsd: number | null;
  freshCostUsd: number | null;
  forkInputCostUsd: number | null;
  freshInputCostUsd: number | null;
  reason: string;
}

/** One system-prompt paragraph `volatile: 'auto'` moved into the turn tail. */
export interface VolatileParagraphRecord {
  /** Where it was: `system[<text>].paragraph[<index>]`. */
  path: string;
  /** `clock` (date/time text), `memory-recall` (a recalled-memory heading) or `system-changed` (it changed between calls). */
  cause: 'clock' | 'memory-recall' | 'system-changed';
  /** `sight`: recognised from the first request; `change`: it differed from the conversation's first request. */
  detectedBy: 'sight' | 'change';
  tokens: number;
  /** Its first 80 characters. */
  excerpt: string;
}

/** `volatile: 'auto'` moved per-turn paragraphs of the system prompt into the turn tail (a drop-in or `cachet proxy --plan`). */
export interface VolatileMovedPayload {
  turn: number;
  step: number;
  moved: VolatileParagraphRecord[];
  /**
   * Estimated tokens after the first moved paragraph whose text changed since the previous call
   * (the rest of the system prompt and the history before this call's new messages): left in
   * place, that change would have made the call write them again instead of reading them. 0 when
   * no moved text changed.
   */
  savedTokens: number;
}

/** When a due compaction is done, decided per idle period by cost (`chooseIdleCompaction`). */
export type CompactionTimingChoice = 'keep-warm' | 'compact-while-cold' | 'compact-before-expiry';

/**
 * The idle-period decision a compaction was timed by, carried by `compaction.planned` and
 * `compaction.applied` (the "context compacted" events) when the pipeline planned the pause
 * before them (`planIdle`). Costs are expected over the session's gaps and the requests left,
 * in input-rate token equivalents (and USD when the model is priced).
 */
export interface CompactionTimingRecord {
  choice: CompactionTimingChoice;
  /** For `compact-before-expiry`: when to compact, ms after the last request (null otherwise). */
  compactAtMs: number | null;
  /** What the keep-warm planner would do to hold the uncompacted prefix, and its ping schedule. */
  keepWarmAction: 'let-expire' | 'ping' | 'write-1h';
  pings: number;
  pingScheduleMs: number[];
  /** The three ways' expected costs, compared (`keepWarm` is null when the planner keeps nothing warm). */
  expectedCost: { keepWarm: number | null; compactWhileCold: number; compactBeforeExpiry: number };
  expectedCostUsd: { keepWarm: number | null; compactWhileCold: number; compactBeforeExpiry: number } | null;
  /** Idle periods the costs were averaged over. */
  gapsPriced: number;
  reason: string;
}
