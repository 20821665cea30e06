import { CACHE_LIFETIMES_MS } from '../cache/wire/cache-rules.js';
import { KEEP_WARM_DEFAULTS } from './plan-keep-warm.js';

const FIVE_MINUTES = CACHE_LIFETIMES_MS.anthropic5m;
const ONE_HOUR = CACHE_LIFETIMES_MS.anthropic1h;

/**
 * What `chooseHistoryTtl` reads of a list of gaps: how many, how many were pauses (longer than
 * 5 minutes, at most an hour), and the keep-warm pings those pauses would have taken. A caller
 * that learns one gap per request keeps a tally with `addGap` instead of handing over a list
 * that grows with the session (and is counted again on every request).
 */
export interface GapTally {
  count: number;
  pauses: number;
  /** Sum over the pauses of the pings keeping a 5-minute entry alive through each. */
  pingsThroughPauses: number;
}

/** A gap a 5-minute entry does not survive and a 1-hour entry does. */
function isPause(gap: number): boolean {
  return gap > FIVE_MINUTES && gap <= ONE_HOUR;
}

/** Add one gap (ms) to `tally`, in place. */
export function addGap(tally: GapTally, gap: number): GapTally {
  tally.count += 1;
  if (isPause(gap)) {
    tally.pauses += 1;
    tally.pingsThroughPauses += Math.ceil((gap - FIVE_MINUTES) / (FIVE_MINUTES - KEEP_WARM_DEFAULTS.marginMs));
  }
  return tally;
}

/** A new tally of `gaps` (ms). */
export function tallyGaps(gaps: readonly number[] = []): GapTally {
  const tally: GapTally = { count: 0, pauses: 0, pingsThroughPauses: 0 };
  for (const gap of gaps) addGap(tally, gap);
  return tally;
}

/** The tally of two sets of gaps read as one. */
export function joinTallies(first: GapTally, second: GapTally): GapTally {
  return {
    count: first.count + second.count,
    pauses: first.pauses + second.pauses,
    pingsThroughPauses: first.pingsThroughPauses + second.pingsThroughPauses,
  };
}

/** A list of gaps (ms), or its tally. */
export type GapSample = readonly number[] | GapTally;

export function tallyOf(sample: GapSample): GapTally {
  return Array.isArray(sample) ? tallyGaps(sample as readonly number[]) : (sample as GapTally);
}
