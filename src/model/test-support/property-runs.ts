/**
 * How many random cases a property test draws. Each property passes the count chosen for it in
 * `npm test` (so its file takes seconds; the required cases are its fast-check `examples`, which
 * run whatever the count). `CACHET_PROPERTY_RUNS=<n>` makes every property draw `n` cases
 * instead: `npm run test:deep` sets it, with random seeds, for a longer search.
 */
export function propertyRuns(defaultRuns: number): number {
  const chosen = process.env.CACHET_PROPERTY_RUNS;
  if (chosen === undefined || chosen === '') return defaultRuns;
  const runs = Number(chosen);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`CACHET_PROPERTY_RUNS must be a positive integer, got "${chosen}"`);
  }
  return runs;
}
