import type { CauseAgreementSummary } from '../../cache/break/compare-server-cause.js';
import type { WireZone } from '../../cache/wire/wire-unit.js';
import type { CacheBreakCause } from '../../events/catalog.js';
import type { ProviderId } from '../../providers/adapter.js';

/** The report `cachet analyze` gives (`analyzeCapture`, `CaptureAnalyzer`). */

export type MissCause = CacheBreakCause | 'no-breakpoint';

/** One judged request. Token figures are the provider's when the capture has usage, else the model's. */
export interface AnalyzedRequest {
  /** Position in the capture, from 0. */
  index: number;
  conversation: string;
  at: number;
  provider: ProviderId;
  model: string;
  /** `reported`: figures from the captured usage; `modelled`: from Cachet's cache model. */
  source: 'reported' | 'modelled';
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  costUsd: number;
  /** What the cache model predicts for this body, for comparison with `reported` figures. */
  modelledReadTokens: number;
  missCause: MissCause | null;
  /** Tokens the previous request left cached that this one did not read. */
  missedTokens: number;
  /** First byte divergence from the conversation's previous request, with what it cost (computed for misses only; `cachet diff --sequence` has every pair). */
  changed: { zone: WireZone; path: string; byteOffset: number; before: string; after: string; cacheImpact: number } | null;
  /** The provider's own diagnosis, when the capture has one. */
  serverCause: string | null;
}

export interface CauseSummary {
  cause: MissCause;
  count: number;
  missedTokens: number;
  advice: string;
}

export interface AnalyzedConversation {
  id: string;
  provider: ProviderId;
  model: string;
  requests: number;
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  /** read ÷ (read + write + uncached). */
  readShare: number;
  costUsd: number;
  /** The same requests with no cache at all. */
  uncachedCostUsd: number;
  /**
   * The same requests with Cachet's plan for cache fields (`cachet proxy --plan`): the actual
   * cost plus what the cache model says the plan changes (so output tokens and the provider's own
   * token counts weigh the same on both sides). A request the proxy already planned (its capture
   * line has `sent`) costs exactly what it cost.
   */
  plannedCostUsd: number;
  plannedReadShare: number;
  /**
   * For a capture of `cachet proxy --plan` (lines with `sent`): what the client's own bodies would
   * have cost without the plan, on the same scale; null for other captures (the actual is the client's).
   */
  clientCostUsd: number | null;
  clientReadShare: number | null;
  /** Most frequent causes first, with what to change. */
  topCauses: CauseSummary[];
  /**
   * How often Cachet's miss cause agrees with the provider's own diagnosis (Anthropic
   * `diagnostics`), over the misses both named.
   */
  causeAgreement: CauseAgreementSummary;
}

export interface CaptureAnalysis {
  requests: AnalyzedRequest[];
  conversations: AnalyzedConversation[];
  totals: {
    requests: number;
    costUsd: number;
    plannedCostUsd: number;
    /** Sum of the conversations' `clientCostUsd`; null when none was planned by the proxy. */
    clientCostUsd: number | null;
    uncachedCostUsd: number;
    readShare: number;
  };
}
