import type { BlockRecord, Zone } from '../model/request.js';

/** The block fields of `request.assembled`: the new blocks in full, the shared prefix by count. */
export interface BlockDelta {
  /** Prefix hash over every block of the request (the identity of its bytes). */
  prefixHash: string;
  blockCount: number;
  /** Leading blocks identical to the previous request's of the same session. */
  sharedBlocks: number;
  /** Hashes of the blocks after the shared ones, in prefix order. */
  blockHashes: Array<{ path: string; zone: Zone; hash: string }>;
}

/**
 * Remembers each session's previous request and describes the next one as a delta, so a
 * `request.assembled` event (and every trace row) grows with the new content only, not with
 * the whole history: a 384-request session otherwise stores every block hash 384 times.
 */
export class BlockDeltaTracker {
  /** Keyed by the session object, so a finished session's blocks are garbage-collected with it. */
  private readonly previous = new WeakMap<object, readonly BlockRecord[]>();

  /** The delta of `blocks` against the previous request recorded for `session`. */
  next(session: object, blocks: readonly BlockRecord[]): BlockDelta {
    const shared = sharedPrefixLength(this.previous.get(session) ?? [], blocks);
    this.previous.set(session, blocks);
    return {
      prefixHash: blocks.at(-1)?.prefixHash ?? '',
      blockCount: blocks.length,
      sharedBlocks: shared,
      blockHashes: blocks.slice(shared).map((block) => ({ path: block.path, zone: block.zone, hash: block.hash })),
    };
  }
}

/**
 * Leading blocks two requests share. Prefix hashes chain every block before them, so equality
 * at one position implies equality at all earlier ones: a binary search finds the boundary.
 */
export function sharedPrefixLength(before: readonly BlockRecord[], after: readonly BlockRecord[]): number {
  let low = 0;
  let high = Math.min(before.length, after.length);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (before[middle - 1]?.prefixHash === after[middle - 1]?.prefixHash) low = middle;
    else high = middle - 1;
  }
  return low;
}
