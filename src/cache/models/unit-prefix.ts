import { sha256 } from '../../model/hash.js';
import { unitsOf } from '../wire/body-units.js';
import { ChunkedList } from '../wire/chunked-list.js';
import { sharedUnitCount } from '../wire/shared-units.js';
import type { NormalizedWireBody, WireUnit } from '../wire/wire-unit.js';
import { sameUnitIdentity, unitIdentity } from '../wire/wire-unit.js';

/**
 * The identity of every prefix of a body: entry `i` hashes units `0..i` (text and role), so
 * two bodies share a cache entry at `i` exactly when their hashes at `i` are equal.
 */
export function unitPrefixHashes(body: NormalizedWireBody): string[] {
  let chain = '';
  return body.units.map((unit) => (chain = sha256(`${chain}\u0001${unitIdentity(unit)}`)));
}

/** `unitPrefixHashes` that remembers the last body it hashed (see `createPrefixHasher`). */
export interface PrefixHasher {
  hashes(body: NormalizedWireBody): ChunkedList<string>;
  /** Forget the remembered body. */
  reset(): void;
}

/**
 * `unitPrefixHashes` for a session's bodies in order: a request repeats most of the previous
 * one, and the hash at `i` depends only on units `0..i`, so the prefix the two share keeps the
 * previous hashes (their storage shared, not copied) and only the new units are hashed. Same
 * values as `unitPrefixHashes`.
 *
 * @example
 * const hasher = createPrefixHasher();
 * hasher.hashes(first); hasher.hashes(second); // the second hashes only what it adds
 */
export function createPrefixHasher(): PrefixHasher {
  let previous: { units: ChunkedList<WireUnit>; hashes: ChunkedList<string> } | null = null;
  return {
    hashes(body) {
      const units = unitsOf(body);
      // Units normalisation handed on as the same objects keep their hashes without a comparison.
      let shared = previous ? sharedUnitCount(units, previous.units) : 0;
      if (previous) {
        const limit = Math.min(units.length, previous.units.length);
        const before = previous.units;
        while (shared < limit && sameUnitIdentity(units.at(shared)!, before.at(shared)!)) shared++;
      }
      const hashes = previous ? previous.hashes.extend(shared) : ChunkedList.empty<string>().extend();
      let chain = shared > 0 ? hashes.at(shared - 1)! : '';
      for (let index = shared; index < units.length; index++) {
        chain = sha256(`${chain}\u0001${unitIdentity(units.at(index)!)}`);
        hashes.push(chain);
      }
      previous = { units, hashes: hashes.done() };
      return previous.hashes;
    },
    reset() {
      previous = null;
    },
  };
}

/** Running totals: entry `i` is the sum of `values[0..i]` (tokens up to and including unit `i`). */
export function runningTotals(values: readonly number[]): number[] {
  let sum = 0;
  return values.map((value) => (sum += value));
}
