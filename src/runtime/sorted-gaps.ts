import { ValidationError } from '../model/errors.js';

/**
 * Idle gaps (ms) as the keep-warm planner and the TTL policy read them: how many, how many last
 * at most some time, and the shortest one longer than a time. Their prices depend on a gap only
 * through thresholds, so a plan walks these counts piece by piece instead of every gap: a
 * session that keeps its gaps here pays O(log gaps) per plan, not O(gaps).
 */
export interface GapCounts {
  readonly size: number;
  /** Gaps ≤ `ms`. */
  countAtMost(ms: number): number;
  /** The shortest gap longer than `ms`, or undefined when none is. */
  firstAbove(ms: number): number | undefined;
}

/**
 * A growing multiset of gaps kept sorted: `add` one gap per request (a push when it is the
 * longest so far, else one insertion), count by binary search.
 *
 * @example
 * const gaps = new SortedGaps([30_000, 420_000]);
 * gaps.add(60_000);
 * gaps.countAtMost(300_000); // 2
 */
export class SortedGaps implements GapCounts {
  private readonly sorted: number[];
  private added = 0;

  /** `path` names the gaps in a validation error (`gapsMs[3]`). */
  constructor(
    gaps: readonly number[] = [],
    private readonly path = 'gapsMs',
  ) {
    gaps.forEach((gap) => {
      this.check(gap);
    });
    this.sorted = [...gaps].sort((a, b) => a - b);
  }

  get size(): number {
    return this.sorted.length;
  }

  add(gap: number): void {
    this.check(gap);
    const last = this.sorted.at(-1);
    if (last === undefined || gap >= last) this.sorted.push(gap);
    else this.sorted.splice(this.countAtMost(gap), 0, gap);
  }

  countAtMost(ms: number): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.sorted[middle] as number) <= ms) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  firstAbove(ms: number): number | undefined {
    return this.sorted[this.countAtMost(ms)];
  }

  private check(gap: number): void {
    const index = this.added++;
    if (!(Number.isFinite(gap) && gap >= 0))
      throw new ValidationError(`${this.path}[${index}]`, 'a finite number ≥ 0', String(gap));
  }
}

/** Two gap sets read as one (a deployment's earlier gaps and the session's own), without copying either. */
export function joinGaps(first: GapCounts, second: GapCounts): GapCounts {
  return {
    get size() {
      return first.size + second.size;
    },
    countAtMost: (ms) => first.countAtMost(ms) + second.countAtMost(ms),
    firstAbove: (ms) => {
      const a = first.firstAbove(ms);
      const b = second.firstAbove(ms);
      return a === undefined ? b : b === undefined ? a : Math.min(a, b);
    },
  };
}

/** Gaps given as a plain list (validated, sorted once) or already as counts. */
export function gapCountsOf(gaps: readonly number[] | GapCounts, path = 'gapsMs'): GapCounts {
  return isGapCounts(gaps) ? gaps : new SortedGaps(gaps, path);
}

export function isGapCounts(gaps: readonly number[] | GapCounts): gaps is GapCounts {
  return !Array.isArray(gaps);
}
