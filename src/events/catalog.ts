import type { AdapterWarning } from '../model/adapter-warning.js';
import type { Zone } from '../model/request.js';
import type { ProviderCacheMissReason, Usage } from '../model/usage.js';
import type {
  CacheKeepalivePayload,
  CompactionSummarizedPayload,
  CompactionTimingRecord,
  VolatileMovedPayload,
} from './cache-over-time-payloads.js';
import type {
  ExplicitCacheCreatedPayload,
  ExplicitCacheDeletedPayload,
  ExplicitCacheExtendedPayload,
} from './explicit-cache-payloads.js';

export type * from './cache-over-time-payloads.js';
export type * from './explicit-cache-payloads.js';

/**
 * The event catalog. Every event has a `noun.verb` type, the session it belongs to, a
 * sequence number within that session and the time it happened (on the session's clock:
 * wall time in production, the workload's clock in simulations). Documented in docs/events.md.
 */
export interface EventBase {
  sessionId: string;
  /** Milliseconds since the Unix epoch on the session's clock. */
  at: number;
  /** Position of the event within its session, from 0. */
  seq: number;
}

/**
 * What a session is, for grouping and filtering across sessions (the dashboard's overview,
 * `/metrics`). All optional; stored as columns of `session.started`.
 */
export interface SessionLabels {
  provider?: string;
  strategy?: string;
  /** Where the traffic came from: `library`, `simulation`, `proxy`, or the harness an import read (`claude-code`, `codex`...). */
  source?: string;
  /** The client program when known (a proxy's `User-Agent` product, e.g. `claude-cli/2.1.3`). */
  client?: string;
  /** A run grouping several sessions (one `cachet demo`, a CI job). */
  run?: string;
  /** The workload a simulation replayed. */
  workload?: string;
  /** The project, repository or API-key label, where known. */
  project?: string;
  /** Simulations only: the hindsight oracle's cost of the same workload (regret = cost ÷ this − 1). */
  oracleCostUsd?: number;
}

export interface SessionStartedPayload extends SessionLabels {
  model: string;
  globalPrefixHash: string;
  sessionPrefixHash: string;
  /** For a subagent's conversation, the session it ran inside. */
  parentSession?: string;
}

export interface TurnStartedPayload {
  turn: number;
}

export interface BreakpointRecord {
  path: string;
  zone: Zone;
  /** Anthropic (and OpenRouter's Anthropic routes): `5m` or `1h`; OpenAI explicit breakpoints: `30m`. */
  ttl: '5m' | '1h' | '30m';
  reason: string;
}

export interface PaddingDecision {
  applied: boolean;
  mode: 'auto' | 'always' | 'never';
  reason: string;
  prefixTokensBefore: number;
  prefixTokensAfter: number;
  floorTokens: number;
  paddedSkills: string[];
}

export interface RequestAssembledPayload {
  turn: number;
  step: number;
  provider: string;
  model: string;
  zoneTokens: Record<Zone, number>;
  /** Prefix hash over every block of the request: equal hashes mean equal bytes. */
  prefixHash: string;
  blockCount: number;
  /** Leading blocks identical to the previous request of the session (0 for the first). */
  sharedBlocks: number;
  /** Hash of each block after the shared ones, in prefix order: the event grows with new content only. */
  blockHashes: Array<{ path: string; zone: Zone; hash: string }>;
  breakpoints: BreakpointRecord[];
  padding: PaddingDecision | null;
  warnings: AdapterWarning[];
}

export interface UsageRecordedPayload {
  turn: number;
  step: number;
  model: string;
  usage: Usage;
  costUsd: number;
  uncachedCostUsd: number;
  /**
   * How long the request took, ms, when the source timed it (an imported log that records when a
   * reply completed, e.g. opencode's `time.completed`); absent when unknown, never guessed.
   */
  durationMs?: number;
}

export type CacheBreakCause =
  | 'clock'
  | 'tool-order'
  | 'tools-changed'
  | 'system-changed'
  | 'history-edited'
  | 'model-changed'
  | 'params-changed'
  | 'ttl-expired'
  | 'below-minimum'
  | 'lookback-exceeded'
  | 'template-rerender'
  /** The shared prefix went past the previous request's last breakpoint although a slot was free. */
  | 'no-breakpoint'
  /** A deliberate, costed history rewrite (`Session.rewriteHistory`, compaction). */
  | 'compaction'
  /** The reply names another upstream than the previous one (OpenRouter routing); caches are per upstream. */
  | 'route-changed'
  | 'unknown';

export interface CacheBreakPayload {
  turn: number;
  step: number;
  cause: CacheBreakCause;
  zone: 'tools' | 'system' | 'messages' | 'params' | null;
  path: string | null;
  byteOffset: number | null;
  before: string | null;
  after: string | null;
  /** Tokens that could have been read from cache and were not. */
  missedTokens: number;
  /** The provider's own diagnosis when the request asked for it (Anthropic `diagnostics`); absent otherwise. */
  serverCause?: ProviderCacheMissReason | null;
}

export type SkillLoadReason = 'always' | 'on_demand' | 'auto_suggested';

export interface SkillLoadedPayload {
  source: string;
  skillId: string;
  version: string;
  loadTokens: number;
  loadReason: SkillLoadReason;
  toolUseId: string | null;
}

export interface ToolFailedPayload {
  toolName: string;
  toolUseId: string | null;
  code: string;
  message: string;
}

export type CompactionLayer =
  | 'ingestion'
  | 'ttl-pruning'
  | 'light'
  | 'priority'
  | 'summary'
  | 'emergency'
  /** Older images replaced by placeholders (media window). */
  | 'media'
  /** Reasoning of earlier turns cleaned or back-filled for the provider (thinking cleaner). */
  | 'thinking';

export interface CompactionPlannedPayload {
  layer: CompactionLayer;
  utilisation: number;
  tokensToRebill: number;
  tokensSavedPerRequest: number;
  decision: 'apply' | 'skip';
  reason: string;
  /** Cache state the decision assumed: hot (within its TTL), cold (expired or model switched). */
  cacheState?: 'hot' | 'cold';
  /** Requests after which the rewrite pays for itself (null when it never does). */
  breakEvenRequests?: number | null;
  /** Every technique in the planned rewrite, in the order applied (`layer` is the strongest). */
  steps?: CompactionLayer[];
  /** The idle-period timing decision this compaction follows (`planIdle`), when there was one. */
  timing?: CompactionTimingRecord;
}

export interface CompactionAppliedPayload {
  layer: CompactionLayer;
  tokensBefore: number;
  tokensAfter: number;
  checkpointId: string | null;
  messagesRewritten: number;
  /** The idle-period timing decision this compaction follows (`planIdle`), when there was one. */
  timing?: CompactionTimingRecord;
}

export interface CompactionSkippedPayload {
  layer: CompactionLayer;
  reason: 'hot-cache' | 'thrashing' | 'too-little-saving' | 'nothing-to-do';
  detail: string;
}

export interface ContextOffloadedPayload {
  restoreId: string;
  toolUseId: string | null;
  originalTokens: number;
  keptTokens: number;
}

export interface ContextRestoredPayload {
  restoreId: string;
  tokens: number;
}

export interface CheckpointCreatedPayload {
  checkpointId: string;
  messageCount: number;
}

export interface HistoryRewrittenPayload {
  reason: string;
  messagesBefore: number;
  messagesAfter: number;
}

export interface WarningPayload {
  source: string;
  message: string;
}

export interface SessionEndedPayload {
  /** User turns the session ran. */
  turns: number;
  /** Messages in history when it ended. */
  historyMessages: number;
}

/** A subscriber threw while receiving an event; the bus contained it and published this. */
export interface ListenerFailedPayload {
  /** The event the listener was given, and its `seq`. */
  eventType: EventType;
  eventSeq: number;
  /** What the listener subscribed to: an event type, or `*` for `onAny`. */
  subscription: EventType | '*';
  errorName: string;
  /** The error's message (at most 1,000 characters). */
  message: string;
}

/**
 * The trace recorder's queue was full (the store was down or too slow) and events of this
 * session were dropped. Published once the store accepts writes again, so it is stored.
 */
export interface TraceDroppedPayload {
  /** Events of this session dropped since the last `trace.dropped`. */
  dropped: number;
  /** The recorder's queue bound (`maxQueuedEvents`). */
  queueLimit: number;
  /** Which events were dropped when the queue was full. */
  policy: 'drop-newest' | 'drop-oldest';
  /** Wall-clock time (ms since the epoch) of the first and last drop. */
  firstDroppedAt: number;
  lastDroppedAt: number;
}

/** What a cache model judged one body to read, write and cost (see `ProxyForwardedPayload.plan`). */
export interface ModelledRequestCost {
  inputTokens: number;
  cacheReadTokens: number;
  /** 5-minute and 1-hour writes together. */
  cacheWriteTokens: number;
  costUsd: number;
}

/**
 * `cachet proxy` forwarded one request and its reply completed: the proxy's counterpart of
 * `request.assembled` (the proxy assembles nothing; it forwards the client's body, or under
 * `--plan` the body with Cachet's cache fields). Published before `usage.recorded` of the same turn.
 */
export interface ProxyForwardedPayload {
  turn: number;
  step: number;
  /** Wire format of the body: anthropic, openai-chat, openai-responses or openrouter. */
  provider: string;
  model: string;
  /** `plan`: cache fields rewritten by `--plan`; `pass-through`: the client's bytes forwarded. */
  mode: 'pass-through' | 'plan';
  /** HTTP status of the upstream's reply. */
  status: number;
  /** Time to the reply's last byte, ms. */
  durationMs: number;
  /** `id` of the upstream's reply (Anthropic `msg_…`, OpenAI `chatcmpl-…` / `resp_…`), when it has one. */
  responseId: string | null;
  /** Paths of the breakpoints Cachet placed under `--plan` (Anthropic), else []. */
  plannedBreakpoints: string[];
  /**
   * Under `--plan`: the conversation's cache model applied to the client's own body (its markers,
   * its `prompt_cache_key`) and to the planned body, each in its own modelled cache, so the
   * dashboard can show what the plan saved. Null without `--plan` or when a body could not be judged.
   */
  plan: { client: ModelledRequestCost; planned: ModelledRequestCost; savedUsd: number } | null;
}

/** Payload type for each event type. */
export interface EventPayloads {
  'session.started': SessionStartedPayload;
  'turn.started': TurnStartedPayload;
  'request.assembled': RequestAssembledPayload;
  'usage.recorded': UsageRecordedPayload;
  'cache.break': CacheBreakPayload;
  'cache.keepalive': CacheKeepalivePayload;
  'skill.loaded': SkillLoadedPayload;
  'tool.failed': ToolFailedPayload;
  'compaction.planned': CompactionPlannedPayload;
  'compaction.applied': CompactionAppliedPayload;
  'compaction.skipped': CompactionSkippedPayload;
  'compaction.summarized': CompactionSummarizedPayload;
  'context.offloaded': ContextOffloadedPayload;
  'context.restored': ContextRestoredPayload;
  'checkpoint.created': CheckpointCreatedPayload;
  'history.rewritten': HistoryRewrittenPayload;
  'explicit_cache.created': ExplicitCacheCreatedPayload;
  'explicit_cache.extended': ExplicitCacheExtendedPayload;
  'explicit_cache.deleted': ExplicitCacheDeletedPayload;
  'warning.raised': WarningPayload;
  'session.ended': SessionEndedPayload;
  'listener.failed': ListenerFailedPayload;
  'trace.dropped': TraceDroppedPayload;
  'proxy.forwarded': ProxyForwardedPayload;
  'volatile.moved': VolatileMovedPayload;
}

export type EventType = keyof EventPayloads;

export type CachetEvent<T extends EventType = EventType> = {
  [K in T]: EventBase & { type: K; payload: EventPayloads[K] };
}[T];

export const EVENT_TYPES: readonly EventType[] = [
  'session.started',
  'turn.started',
  'request.assembled',
  'usage.recorded',
  'cache.break',
  'cache.keepalive',
  'skill.loaded',
  'tool.failed',
  'compaction.planned',
  'compaction.applied',
  'compaction.skipped',
  'compaction.summarized',
  'context.offloaded',
  'context.restored',
  'checkpoint.created',
  'history.rewritten',
  'explicit_cache.created',
  'explicit_cache.extended',
  'explicit_cache.deleted',
  'warning.raised',
  'session.ended',
  'listener.failed',
  'trace.dropped',
  'proxy.forwarded',
  'volatile.moved',
];
