import type { CacheBreakCause } from '../../events/catalog.js';
import type { ProviderCacheMissReason } from '../../model/usage.js';

/** How Cachet's cause of a miss relates to the provider's own diagnosis. */
export type CauseAgreement = 'agree' | 'disagree' | 'no-diagnosis';

/**
 * Which Cachet causes each Anthropic `cache_miss_reason.type` covers. The server compares the
 * request with the one named by `previous_message_id` level by level (model, system, tools,
 * messages); `unavailable` covers the other prompt-shaping parameters (thinking, tool_choice),
 * and TTL expiry shows as no reason at all on an otherwise matching prefix.
 * [platform.claude.com cache-diagnostics guide; @anthropic-ai/sdk 1.12 `CacheMissReason`, checked 2026-11-23]
 */
export const SERVER_CAUSE_MATCHES: Readonly<Record<string, readonly CacheBreakCause[]>> = {
  model_changed: ['model-changed'],
  system_changed: ['system-changed', 'clock'],
  tools_changed: ['tools-changed', 'tool-order'],
  messages_changed: ['history-edited', 'clock', 'template-rerender'],
  unavailable: ['params-changed', 'ttl-expired', 'lookback-exceeded', 'below-minimum', 'unknown'],
};

/**
 * Compare Cachet's cause with the server's reason. `previous_message_not_found` and a missing
 * reason give `no-diagnosis`: the server could not compare, which says nothing about Cachet.
 *
 * @example
 * compareServerCause('clock', { type: 'system_changed', missedTokens: 4096 }); // 'agree'
 */
export function compareServerCause(cause: CacheBreakCause, reason: ProviderCacheMissReason | null | undefined): CauseAgreement {
  if (!reason || reason.type === 'previous_message_not_found') return 'no-diagnosis';
  const matches = SERVER_CAUSE_MATCHES[reason.type];
  if (!matches) return 'no-diagnosis';
  return matches.includes(cause) ? 'agree' : 'disagree';
}

/** Agreement counts over many breaks, for analytics and the dashboard. */
export interface CauseAgreementSummary {
  diagnosed: number;
  agree: number;
  disagree: number;
  /** agree / diagnosed; null when nothing was diagnosed. */
  agreementRate: number | null;
  /** The disagreeing pairs, most frequent first. */
  disagreements: Array<{ cause: CacheBreakCause; serverType: string; count: number }>;
}

/**
 * Summarise how often Cachet and the provider agree on the cause of each miss.
 *
 * @example
 * summarizeCauseAgreement(breaks.map((event) => event.payload)).agreementRate; // 0.93
 */
export function summarizeCauseAgreement(
  breaks: ReadonlyArray<{ cause: CacheBreakCause; serverCause?: ProviderCacheMissReason | null }>,
): CauseAgreementSummary {
  let agree = 0;
  let disagree = 0;
  const pairs = new Map<string, { cause: CacheBreakCause; serverType: string; count: number }>();
  for (const entry of breaks) {
    const verdict = compareServerCause(entry.cause, entry.serverCause);
    if (verdict === 'agree') agree++;
    if (verdict !== 'disagree') continue;
    disagree++;
    const serverType = entry.serverCause!.type;
    const key = `${entry.cause}\u0000${serverType}`;
    const pair = pairs.get(key) ?? { cause: entry.cause, serverType, count: 0 };
    pair.count++;
    pairs.set(key, pair);
  }
  const diagnosed = agree + disagree;
  return {
    diagnosed,
    agree,
    disagree,
    agreementRate: diagnosed === 0 ? null : agree / diagnosed,
    disagreements: [...pairs.values()].sort((left, right) => right.count - left.count),
  };
}
