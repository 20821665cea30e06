import type { TokenCounter } from '../../tokens/token-counter.js';
import type { AnthropicCacheState, CallerMarker } from '../anthropic/place-breakpoints.js';
import type { DeferredToolPlacement } from '../shared/deferred-tool-placement.js';
import type { BedrockModelRow, BedrockTtl } from './models.js';
import type { BedrockCheckpointMode } from './place-breakpoints.js';

/** Options of the Bedrock Converse adapter. Every field is optional; defaults are in brackets. */
export interface BedrockOptions {
  /**
   * `plan` [default]: Cachet places `cachePoint`s up to the model's limit (global static end,
   * session static end, history end, lookback guard). `none`: caller markers only (a baseline).
   * Named as on the Anthropic adapter, so the same options drive both.
   */
  breakpoints?: BedrockCheckpointMode;
  /** TTL per zone ['5m' everywhere]; 1h falls back to 5m on models that do not offer it. */
  ttl?: Partial<Record<'global' | 'session' | 'history', BedrockTtl>>;
  /** Token estimates [chars/4 fallback; pass the calibrated Anthropic estimator for Claude]. */
  tokenCounter?: TokenCounter;
  /** The previous request's `metadata.cacheState`, for the lookback guard (see the Anthropic adapter). */
  previous?: AnthropicCacheState | null;
  /** No request is expected after this one: the history checkpoint stays at the previous entry (see the Anthropic adapter). */
  finalRequest?: boolean;
  /** Tokens the session static zone must add to earn its own checkpoint [1024]. */
  sessionBreakpointMinTokens?: number;
  /** Caller checkpoints by canonical block path; they take slots first. */
  markers?: readonly CallerMarker[];
  /** Model rows that override or extend the built-in tables. */
  models?: readonly BedrockModelRow[];
  /**
   * Where the session's deferred tools go (Converse cannot defer loading): `append` [default]
   * adds each to `toolConfig.tools` when history loads it, `upfront` declares them all.
   */
  deferredTools?: DeferredToolPlacement;
}
