import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { BreakpointRecord } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import type { AdapterWarning } from '../../model/adapter-warning.js';
import type { Usage } from '../../model/usage.js';
import type { AnthropicModelRow, AnthropicTtl } from '../../providers/anthropic/models.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ContainedHookOptions } from './contained-hooks.js';
import type { ExistingMarkers } from './plan-prompt-breakpoints.js';
import type { ScopeDecision } from './turn-tail.js';
import type { VolatileOption } from './volatile-auto.js';

/** What a middleware (AI SDK, LangChain) decided for one model call, passed to `onRequest`. */
export interface DropInCallInfo {
  conversationId: string;
  provider: 'anthropic' | 'openai' | 'other';
  model: string;
  /** Turn (user messages so far, from 1) and step (assistant messages since the last user message). */
  turn: number;
  step: number;
  /** Anthropic breakpoints placed (at most four); empty for other providers. */
  breakpoints: BreakpointRecord[];
  /** `promptCacheKey` set for OpenAI (the caller's own wins). */
  promptCacheKey: string | null;
  /** The plan's warnings as `{ code, message, path? }` (ready to become span attributes). */
  warnings: AdapterWarning[];
  /** The scope each tail item got at this call, and why (declared, or the cost comparison). */
  tailScopes: ScopeDecision[];
}

/** The options the AI SDK and LangChain middlewares share. Every field is optional. */
export interface DropInOptions<Info> extends ContainedHookOptions {
  /**
   * `auto`: move the per-turn paragraphs of the system prompt (present date/time and recalled
   * memories on sight, any other paragraph once it differs from the conversation's first call)
   * into a turn-scoped tail, so the rest of the system prompt stays byte-stable. The model then
   * reads that text after the user message that opened the turn instead of in the system
   * prompt. Publishes `volatile.moved`. `off` [default]. See docs/integrations/.
   */
  volatile?: VolatileOption;
  /** Anthropic TTL per zone (tools, system, history) ['5m']; 1h zones are kept before 5m ones. */
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  /**
   * Markers the caller already set: `replace` [default] removes them and places Cachet's plan;
   * `keep` gives them slots first and fills the rest (never more than four in all).
   */
  existingMarkers?: ExistingMarkers;
  /**
   * Publishes `request.assembled`, `usage.recorded` (only usage whose figures are whole
   * non-negative counts), `cache.break`, `volatile.moved` and `warning.raised`, session id =
   * conversation id.
   */
  bus?: EventBus;
  onRequest?: (info: Info) => void;
  onUsage?: (usage: Usage, info: Info) => void;
  /** A request that lost cached tokens, with its cause (clock, system-changed, tools-changed...). */
  onBreak?: (cacheBreak: CacheBreak, info: Info) => void;
  /** Conversations whose state is kept (least recently used dropped first) [256]. */
  maxConversations?: number;
  /** Token estimates for the plan [Anthropic's calibrated estimator]. */
  tokenCounter?: TokenCounter;
  /** Anthropic model rows that override the built-in table (floors). */
  models?: readonly AnthropicModelRow[];
  /** Clock for event times [Date.now]. */
  clock?: () => number;
}
