/**
 * Whether spending `nextUsd` more would pass `budgetUsd`. Sums of binary fractions drift
 * (0.01 + 0.01 + 0.01 > 0.03 in floating point), so a budget of exactly three $0.01 pings would
 * stop at two; a relative tolerance of one part in 10^12 absorbs the drift, far below a cent.
 */
export function wouldPassBudget(spentUsd: number, nextUsd: number, budgetUsd: number): boolean {
  return spentUsd + nextUsd - budgetUsd > Math.max(Math.abs(budgetUsd), 1) * 1e-12;
}
