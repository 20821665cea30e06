import type { CompactionSkippedPayload } from '../events/catalog.js';
import type { CompactionThresholds } from './options.js';

/** The facts a skip decision rests on: all numbers, so the policy is tested without a session. */
export interface SkipPolicyInput {
  /** A correctness fix (reasoning back-fill) is in the plan: it applies whatever the cost. */
  mandatory: boolean;
  utilisation: number;
  emergencyThreshold: number;
  /** Tokens of the request before the rewrite, and saved on every later request by it. */
  tokensBefore: number;
  saved: number;
  /** Requests since the last applied compaction (Infinity when none was). */
  requestsSinceLast: number;
  minIntervalRequests: number;
  minSavingShare: number;
  cacheHot: boolean;
  /** The cost model's verdict: the rewrite pays back within the expected remaining requests. */
  pays: boolean;
  breakEvenRequests: number;
  tokensToRebill: number;
  remainingRequests: number;
}

export interface SkipVerdict {
  reason: CompactionSkippedPayload['reason'];
  detail: string;
}

/**
 * Whether a planned rewrite is skipped, and why (null: apply it). In order: a mandatory fix or an
 * emergency applies unless it saves nothing; otherwise a rewrite that saves nothing, comes too
 * soon after the last one (thrashing), saves too small a share, or does not pay back on a hot
 * cache is skipped.
 */
export function skipPolicy(input: SkipPolicyInput): SkipVerdict | null {
  const { saved, tokensBefore } = input;
  if (input.mandatory) return null;
  if (saved <= 0) return { reason: 'nothing-to-do', detail: 'the planned rewrite saves no tokens' };
  if (input.utilisation >= input.emergencyThreshold) return null;
  if (input.requestsSinceLast < input.minIntervalRequests) {
    return {
      reason: 'thrashing',
      detail: `${input.requestsSinceLast} request${input.requestsSinceLast === 1 ? '' : 's'} since the last compaction; the minimum is ${input.minIntervalRequests}`,
    };
  }
  if (saved / tokensBefore < input.minSavingShare) {
    return {
      reason: 'too-little-saving',
      detail: `saves ${saved} of ${tokensBefore} tokens (${percent(saved / tokensBefore)}), below the minimum ${percent(input.minSavingShare)}`,
    };
  }
  if (input.cacheHot && !input.pays) {
    const breakEven = Number.isFinite(input.breakEvenRequests) ? input.breakEvenRequests.toFixed(1) : 'never';
    return {
      reason: 'hot-cache',
      detail: `re-billing ${input.tokensToRebill} tokens to save ${saved} per request pays back after ${breakEven} requests; ${input.remainingRequests} expected`,
    };
  }
  return null;
}

/** What a request whose plan has no step amounts to: below the thresholds, monitoring, or a skip. */
export interface EmptyPlanVerdict {
  action: 'none' | 'skipped';
  reason: string;
  /** The `compaction.skipped` payload, when the utilisation called for compaction. */
  skipped: CompactionSkippedPayload | null;
}

/**
 * A plan with no step: above the light threshold that is a skip (everything compressible is in
 * the protected tail); between monitor and light it is monitoring; below, nothing.
 */
export function emptyPlanVerdict(utilisation: number, thresholds: CompactionThresholds, cacheHot: boolean): EmptyPlanVerdict {
  if (utilisation >= thresholds.light) {
    const reason = 'nothing left to compress outside the protected tail';
    return {
      action: 'skipped',
      reason,
      skipped: { layer: utilisation >= thresholds.full ? 'priority' : 'light', reason: 'nothing-to-do', detail: reason },
    };
  }
  if (utilisation >= thresholds.monitor) {
    return { action: 'none', reason: cacheHot ? 'monitoring; the cache is hot' : 'monitoring', skipped: null };
  }
  return { action: 'none', reason: 'below every threshold', skipped: null };
}

/** Why an applied rewrite is applied, in the words of `compaction.planned`. */
export function applyReason(input: {
  mandatory: boolean;
  model: string;
  utilisation: number;
  emergencyThreshold: number;
  cacheHot: boolean;
  breakEvenRequests: number;
  remainingRequests: number;
  /** Milliseconds since the previous request (null: the first request of the session). */
  idleMs: number | null;
}): string {
  if (input.mandatory) return `model switched to ${input.model}: tool-call messages need reasoning back-filled`;
  if (input.utilisation >= input.emergencyThreshold) return `emergency at ${percent(input.utilisation)} of the window`;
  if (input.cacheHot)
    return `pays back after ${input.breakEvenRequests.toFixed(1)} of ${input.remainingRequests} expected requests`;
  const idle = input.idleMs === null ? 'since start' : `${Math.round(input.idleMs / 1000)}s`;
  return `cache is cold (idle ${idle}); the prefix is written anyway`;
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
