/**
 * The keep-warm planner priced gap by gap, as it was before it walked sorted gaps (commit
 * 0f9cdfa): every distinct gap's cost taken at that gap, never extended over a piece. The
 * property test compares it with `planKeepWarm`, whose piecewise walk trusts each cost's `until`.
 */
import type { GapAverage, KeepWarmInput, KeepWarmPlan } from '../plan-keep-warm.js';
import { planKeepWarmAveraging } from '../plan-keep-warm.js';

const perGapAverage: GapAverage = (gaps, idle, count, cost) => {
  let total = 0;
  let counted = gaps.countAtMost(idle);
  for (let gap = gaps.firstAbove(idle); gap !== undefined; gap = gaps.firstAbove(gap)) {
    const upTo = gaps.countAtMost(gap);
    total += (upTo - counted) * cost(gap).cost;
    counted = upTo;
  }
  return total / count;
};

/** `planKeepWarm` with every gap priced on its own. */
export function referencePlanKeepWarm(input: KeepWarmInput): KeepWarmPlan {
  return planKeepWarmAveraging(input, perGapAverage);
}
