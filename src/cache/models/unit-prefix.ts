import { sha256 } from '../../model/hash.js';
import type { NormalizedWireBody } from '../wire/wire-unit.js';
import { unitIdentity } from '../wire/wire-unit.js';

/**
 * The identity of every prefix of a body: entry `i` hashes units `0..i` (text and role), so
 * two bodies share a cache entry at `i` exactly when their hashes at `i` are equal.
 */
export function unitPrefixHashes(body: NormalizedWireBody): string[] {
  let chain = '';
  return body.units.map((unit) => (chain = sha256(`${chain}\u0001${unitIdentity(unit)}`)));
}

/** Running totals: entry `i` is the sum of `values[0..i]` (tokens up to and including unit `i`). */
export function runningTotals(values: readonly number[]): number[] {
  let sum = 0;
  return values.map((value) => (sum += value));
}
