import type { CompactionTimingRecord } from '../events/catalog.js';
import type { StageEmit } from './emit-stage.js';
import type { measureStage } from './measure-stage.js';
import type { CompactionOptions } from './options.js';
import type { PipelineSessionState } from './pipeline-state.js';
import type { PlannedRewrite, RewriteEstimate } from './plan-stage.js';
import { applyReason, type SkipVerdict, skipPolicy } from './skip-policy.js';

/**
 * The judge stage: whether the planned rewrite is applied now or skipped (`skipPolicy`), and
 * why, published as `compaction.planned`. Nothing touches the session.
 */
export function judgeStage(input: {
  model: string;
  state: PipelineSessionState;
  options: CompactionOptions;
  measured: Pick<ReturnType<typeof measureStage>, 'tokens' | 'utilisation' | 'cacheHot' | 'remainingRequests'>;
  planned: PlannedRewrite;
  estimate: RewriteEstimate;
  now: number;
  emit: StageEmit;
  /** The pause's timing decision (`planIdle`) this compaction follows, if any. */
  timing?: CompactionTimingRecord | undefined;
}): { skip: SkipVerdict | null; reason: string } {
  const { state, options, measured, estimate, now } = input;
  const { utilisation, cacheHot } = measured;
  const { layer, saved, cost, tokensToRebill } = estimate;
  const { steps, mandatory } = input.planned.plan;
  const emergency = options.thresholds.emergency;
  const skip = skipPolicy({
    mandatory,
    utilisation,
    emergencyThreshold: emergency,
    tokensBefore: measured.tokens.total,
    saved,
    requestsSinceLast:
      state.lastAppliedRequest === null ? Number.POSITIVE_INFINITY : state.requestIndex - state.lastAppliedRequest,
    minIntervalRequests: options.minIntervalRequests,
    minSavingShare: options.minSavingShare,
    cacheHot,
    pays: cost.pays,
    breakEvenRequests: cost.breakEvenRequests,
    tokensToRebill,
    remainingRequests: measured.remainingRequests,
  });
  const reason = skip
    ? skip.detail
    : applyReason({
        mandatory,
        model: input.model,
        utilisation,
        emergencyThreshold: emergency,
        cacheHot,
        breakEvenRequests: cost.breakEvenRequests,
        remainingRequests: measured.remainingRequests,
        idleMs: state.lastRequestAt === null ? null : now - state.lastRequestAt,
      });
  input.emit('compaction.planned', {
    layer,
    utilisation,
    tokensToRebill: cacheHot ? tokensToRebill : 0,
    tokensSavedPerRequest: Math.max(0, saved),
    decision: skip ? 'skip' : 'apply',
    reason,
    cacheState: cacheHot ? 'hot' : 'cold',
    breakEvenRequests: Number.isFinite(cost.breakEvenRequests) ? cost.breakEvenRequests : null,
    steps,
    ...(input.timing ? { timing: input.timing } : {}),
  });
  return { skip, reason };
}
