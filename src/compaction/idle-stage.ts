import { findPrice } from '../cache/pricing.js';
import type { CompactionTimingRecord } from '../events/catalog.js';
import { ValidationError } from '../model/errors.js';
import { isProviderId } from '../providers/provider-id.js';
import type { CacheMultipliers } from '../providers/shared/price-row.js';
import { prewarmingParamsReason, prewarmingUnsupportedReason } from '../runtime/prewarming.js';
import { cacheMultipliersFor } from '../runtime/tail-pricing.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { chooseIdleCompaction } from './idle-timing.js';
import { measureStage } from './measure-stage.js';
import type { CompactionOptions } from './options.js';
import type { PipelineSessionState } from './pipeline-state.js';
import { planStage } from './plan-stage.js';
import type { ThinkingStyleRule } from './thinking-cleaner.js';

/** What `planIdle` may be told about the pause it plans; everything has a default. */
export interface IdlePlanInput {
  /** When the pause is planned [the session's clock]: right after the request went out, usually. */
  now?: number;
  /** Gaps of earlier sessions (`sessionRhythmFromTrace`), ms, priced with this session's own. */
  priorGapsMs?: readonly number[];
  /** Requests expected after the pause, the return included [the pipeline's `expectedRemainingRequests`]. */
  remainingRequests?: number;
  /**
   * The summary call's cost, input-rate token equivalents, made while the parent's entry is alive
   * and after it expired [0 and 0: the extractive summariser]. With `createLlmSummarizer`, its
   * route prices (`chooseSummaryRoute` with `parentWarm` true and false) ÷ input rate × 10⁶; or a
   * function of the prefix the summary would read, called only when a rewrite is due.
   */
  summaryCost?: SummaryCost | ((prefix: { prefixTokens: number; compactedPrefixTokens: number }) => SummaryCost);
  /** The model's cache multipliers [its price row, `cacheMultipliersFor`]. */
  pricing?: CacheMultipliers;
  /** The model's input rate, USD per million tokens [its price row; unpriced: costs in tokens only]. */
  inputPerMTok?: number;
}

/** The summary call's cost while the parent's entry is alive, and after, input-rate token equivalents. */
export interface SummaryCost {
  warm: number;
  cold: number;
}

/** What the pipeline remembers between requests for timing (not archived in checkpoints). */
export interface IdleState {
  /** Gaps between this session's requests, ms (the last 64). */
  gapsMs: number[];
  /** The decision for the pause under way, until the compaction or request it times. */
  timing: CompactionTimingRecord | null;
}

const REMEMBERED_GAPS = 64;

export function recordGap(idle: IdleState, state: PipelineSessionState, now: number): void {
  if (state.lastRequestAt === null || now < state.lastRequestAt) return;
  idle.gapsMs.push(now - state.lastRequestAt);
  if (idle.gapsMs.length > REMEMBERED_GAPS) idle.gapsMs.shift();
}

/**
 * After `keep-warm`, the request that ends the pause meets a warm cache while the planner's
 * schedule held it (last ping + TTL, or the hour of a 1-hour write); the caller's own
 * `cacheHot` wins.
 */
export function keptWarm(
  idle: IdleState,
  state: PipelineSessionState,
  options: CompactionOptions,
  now: number,
): boolean | undefined {
  const timing = idle.timing;
  if (timing?.choice !== 'keep-warm' || state.lastRequestAt === null) return undefined;
  const heldFor = timing.keepWarmAction === 'write-1h' ? 60 * 60_000 : (timing.pingScheduleMs.at(-1) ?? 0) + options.cacheTtlMs;
  return now - state.lastRequestAt <= heldFor;
}

/**
 * Plan the pause that starts now: what compaction the session would get at a cold cache, and
 * when to do it (`chooseIdleCompaction`). Null when no rewrite would save anything (nothing to time).
 */
export function idleStage(input: {
  session: Session;
  state: PipelineSessionState;
  idle: IdleState;
  options: CompactionOptions;
  counter: TokenCounter;
  rule: ThinkingStyleRule | null;
  provider: string;
  plan: IdlePlanInput;
}): CompactionTimingRecord | null {
  const { session, state, idle, options, plan } = input;
  const now = plan.now ?? session.clock();
  const remainingRequests = plan.remainingRequests ?? Math.max(1, options.expectedRemainingRequests);
  if (!(Number.isFinite(remainingRequests) && remainingRequests >= 1)) {
    throw new ValidationError('planIdle.remainingRequests', 'a finite number ≥ 1', String(remainingRequests));
  }
  // A pause that waits on tool results (an approval prompt, a long tool) has no next request to
  // plan yet: the history ends with calls no request can be assembled without.
  const last = session.history.at(-1);
  if (last?.role === 'assistant' && last.content.some((block) => block.type === 'tool_use')) {
    idle.timing = null;
    return null;
  }
  // What the thresholds would compact once the entry has expired (cold-cache pruning included).
  const measured = measureStage({ ...input, now, context: { now, cacheHot: false, remainingRequests } });
  const planned = planStage({ ...input, measured });
  const estimate = planned.estimate;
  if (!estimate || estimate.saved <= 0) {
    idle.timing = null;
    return null;
  }
  const provider = isProviderId(input.provider) ? input.provider : null;
  const price = provider ? findPrice(provider, session.model) : null;
  const pricing = plan.pricing ?? (provider ? cacheMultipliersFor(provider, session.model) : null);
  if (!pricing) throw new ValidationError('planIdle.pricing', `cache multipliers for provider ${input.provider}`);
  const inputPerMTok = plan.inputPerMTok ?? price?.inputPerMTok;
  const { tokens } = measured;
  const prefix = {
    prefixTokens: tokens.static + tokens.history,
    compactedPrefixTokens: Math.max(tokens.static, estimate.tokensAfter - tokens.tail),
  };
  const summaryCost = typeof plan.summaryCost === 'function' ? plan.summaryCost(prefix) : plan.summaryCost;
  idle.timing = chooseIdleCompaction({
    ...prefix,
    staticTokens: tokens.static,
    tokensToRebill: estimate.tokensToRebill,
    gapsMs: [...(plan.priorGapsMs ?? []), ...idle.gapsMs],
    idleMs: state.lastRequestAt === null ? 0 : Math.max(0, now - state.lastRequestAt),
    ttlMs: options.cacheTtlMs,
    pricing,
    ...(inputPerMTok === undefined ? {} : { inputPerMTok }),
    remainingRequests,
    ...(summaryCost ? { summaryCost } : {}),
    // No ping is sent after a request with extended thinking (Anthropic refuses max_tokens: 0 with it).
    prewarming:
      provider !== null &&
      prewarmingUnsupportedReason(provider, session.model) === null &&
      prewarmingParamsReason(session.params) === null,
  });
  return idle.timing;
}
