import type { PaddingDecision } from '../../events/catalog.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { AnthropicModelRow, AnthropicTtl } from './models.js';

export type PaddingMode = 'auto' | 'always' | 'never';

/** A skill whose body may be inlined as padding (pre-activation, seed spec §5.2.2). */
export interface PaddingSkill {
  name: string;
  body: string;
}

/**
 * A padding decision reduced to what is needed to repeat it byte for byte: which skills, how
 * many guideline sections. Carried in `AnthropicCacheState` so that a session keeps its first
 * decision even when the token counter is re-calibrated between requests (estimates move, the
 * prefix must not).
 */
export interface PaddingPin {
  model: string;
  mode: PaddingMode;
  decision: PaddingDecision;
  skills: string[];
  guidelineSections: number;
}

/** A cache entry a request wrote: where its breakpoint was and the prefix it covered. */
export interface AnthropicCacheEntry {
  path: string;
  prefixHash: string;
}

/**
 * What the next request needs to know about this one to place its lookback guard: the entries
 * this request's message breakpoints wrote. Take it from `metadata.cacheState` and pass it back
 * as `options.previous` on the next request of the same session.
 */
export interface AnthropicCacheState {
  entries: AnthropicCacheEntry[];
  /** The session's padding decision, repeated on later requests (see `PaddingPin`). */
  padding?: PaddingPin;
}

export type BreakpointMode = 'plan' | 'automatic' | 'none';

/** A caller's own marker, by path. Caller markers come first; the plan fills the remaining slots. */
export interface CallerMarker {
  path: string;
  ttl?: AnthropicTtl;
}

/** Options of the Anthropic adapter. Every field is optional; defaults are in brackets. */
export interface AnthropicOptions {
  /**
   * `plan` [default]: Cachet places up to four breakpoints (global static end, session static end,
   * history end, lookback guard). `automatic`: only Anthropic's top-level `cache_control`
   * (plus caller markers). `none`: no markers except caller markers (a baseline to compare with).
   */
  breakpoints?: BreakpointMode;
  /** TTL per zone ['5m' everywhere]. Earlier zones are raised to 1h when a later one uses 1h. */
  ttl?: Partial<Record<'global' | 'session' | 'history', AnthropicTtl>>;
  /**
   * `final-user-message` [default]: the turn tail becomes text blocks inside the final user
   * message, after its tool_result blocks. `system`: the tail becomes a last system block (seed
   * spec §2); the history then goes uncached whenever the tail changes.
   */
  tailPlacement?: 'final-user-message' | 'system';
  /** Minimum-prefix padding ['auto']: see `planPadding`. */
  padding?: PaddingMode;
  /** Skills whose bodies may be inlined as padding, tried in name order. */
  skills?: readonly PaddingSkill[];
  /** Requests a session is expected to make, for the padding cost model [10]. */
  expectedRequests?: number;
  /** Tokens each request adds to the cached prefix, for the padding cost model [500]. */
  expectedGrowthTokens?: number;
  /** Padding target in estimated tokens [the model row's, 4,500–5,500 for 4,096-token floors]. */
  paddingTarget?: { min: number; max: number };
  /** Token estimates [chars/4 fallback; pass the calibrated Anthropic estimator from src/tokens]. */
  tokenCounter?: TokenCounter;
  /**
   * The previous request's `metadata.cacheState`, for the lookback guard. `undefined` [default]
   * infers it (the previous request ended before the last assistant message); `null` says there
   * was no previous request whose entries could be read.
   */
  previous?: AnthropicCacheState | null;
  /**
   * No request is expected after this one [false]: nothing would read a new history entry, so the
   * history breakpoint stays where the previous request's entry ends (read, not re-written) and
   * what follows it goes uncached (1× instead of a 1.25× write). Without a live previous entry in
   * the history, the history end is marked as usual.
   */
  finalRequest?: boolean;
  /** Tokens the session static zone must add to earn its own breakpoint [1024]. */
  sessionBreakpointMinTokens?: number;
  /** Caller markers by block path; they take slots first, extras are dropped with a warning. */
  markers?: readonly CallerMarker[];
  /** Model rows that override or extend the built-in table. */
  models?: readonly AnthropicModelRow[];
  /**
   * Ask the API why the cache missed (`diagnostics: { previous_message_id }`): pass the `id` of the
   * session's previous response, or `null` on the first request to opt in [off]. The reply's
   * `diagnostics.cache_miss_reason` then lands in `parseUsage(...).cacheMissReason`.
   */
  diagnostics?: { previousMessageId: string | null };
  /**
   * The tool-search tool sent with deferred tools (`request.deferredTools`): `regex` [default]
   * (`tool_search_tool_regex_20251119`), `bm25` (`tool_search_tool_bm25_20251119`), or `none`
   * when the harness offers its own search tool answering with `toolReferences`. Deferred
   * definitions go out with `defer_loading: true` and stay outside the cached prefix.
   */
  toolSearch?: 'regex' | 'bm25' | 'none';
}

export const DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS = 1024;
