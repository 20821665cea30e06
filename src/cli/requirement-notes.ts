import { MissingDependencyError } from '../model/optional-dependency.js';
import type { SimulationRequirements } from '../simulate/simulation-requirements.js';

/**
 * The one line that says counts are estimates and what would make them exact, or null when
 * every count is exact.
 */
export function estimatedCountsNote(requirements: SimulationRequirements): string | null {
  const packages = requirements.forExactCounts;
  if (packages.length === 0) return null;
  return `token counts are estimates (inexact) where a tokenizer is missing; \`npm install ${packages.join(' ')}\` makes them exact`;
}

/** The error for a run that cannot happen without optional packages, naming all of them at once. */
export function missingToRun(requirements: SimulationRequirements, purpose: string): MissingDependencyError | null {
  return requirements.toRun.length === 0 ? null : new MissingDependencyError(requirements.toRun.join(' '), purpose);
}
