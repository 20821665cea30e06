import type { AdapterWarning } from '../../model/adapter-warning.js';

/** A marker a caller or planner wants on a request, before the provider's limit is applied. */
export interface BreakpointCandidate {
  /** Where the marker goes (a canonical block path such as `messages[3].content[0]`). */
  path: string;
  /** Who asked for it: `caller` for markers passed in, otherwise the planner's reason. */
  source: string;
}

/** A problem with a request's markers that the provider would reject or silently ignore. */
export interface BreakpointWarning extends AdapterWarning {
  code: 'too-many-breakpoints' | 'not-cacheable' | 'ttl-order' | 'unknown-path' | 'duplicate';
  path: string;
  message: string;
}

/**
 * Keep at most `limit` candidates in the order given (callers list the most important first)
 * and return warnings for the ones dropped, instead of throwing: a request with too many
 * markers is still a valid request once the extras are gone.
 *
 * @example
 * const { kept, warnings } = fitBreakpointBudget(candidates, 4);
 */
export function fitBreakpointBudget<Candidate extends BreakpointCandidate>(
  candidates: readonly Candidate[],
  limit: number,
): { kept: Candidate[]; warnings: BreakpointWarning[] } {
  const kept: Candidate[] = [];
  const warnings: BreakpointWarning[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (seen.has(candidate.path)) {
      if (candidate.source === 'caller') {
        warnings.push({
          code: 'duplicate',
          path: candidate.path,
          message: `${candidate.path}: marker requested twice; kept once`,
        });
      }
      continue;
    }
    if (kept.length >= limit) {
      warnings.push({
        code: 'too-many-breakpoints',
        path: candidate.path,
        message: `${candidate.path}: ${candidate.source} breakpoint dropped, the request already has the maximum of ${limit}`,
      });
      continue;
    }
    seen.add(candidate.path);
    kept.push(candidate);
  }
  return { kept, warnings };
}
