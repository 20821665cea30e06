import type { BlockRecord, CanonicalRequest, Zone } from '../model/request.js';
import { requestBlockCount, requestReader } from '../model/request-view.js';

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

/** A request's block records read one at a time, so a lazily built request is not copied. */
interface BlockSequence {
  count: number;
  at(index: number): BlockRecord | undefined;
}

function blockSequence(source: readonly BlockRecord[] | CanonicalRequest): BlockSequence {
  if (Array.isArray(source)) {
    const blocks = source as readonly BlockRecord[];
    return { count: blocks.length, at: (index) => blocks[index] };
  }
  const request = source as CanonicalRequest;
  return { count: requestBlockCount(request), at: requestReader(request).blockAt };
}

/**
 * Remembers each session's previous request and describes the next one as a delta, so a
 * `request.assembled` event (and every trace row) grows with the new content only, not with
 * the whole history: a 384-request session otherwise stores every block hash 384 times.
 */
export class BlockDeltaTracker {
  /** Keyed by the session object, so a finished session's blocks are garbage-collected with it. */
  private readonly previous = new WeakMap<object, BlockSequence>();

  /**
   * The delta of a request's blocks against the previous request recorded for `session`. Pass
   * the request itself rather than `request.blocks`: reading `blocks` copies the whole history.
   */
  next(session: object, source: readonly BlockRecord[] | CanonicalRequest): BlockDelta {
    const blocks = blockSequence(source);
    const shared = sharedLength(this.previous.get(session) ?? { count: 0, at: () => undefined }, blocks);
    this.previous.set(session, blocks);
    const blockHashes: BlockDelta['blockHashes'] = [];
    for (let index = shared; index < blocks.count; index++) {
      const block = blocks.at(index) as BlockRecord;
      blockHashes.push({ path: block.path, zone: block.zone, hash: block.hash });
    }
    return {
      prefixHash: blocks.at(blocks.count - 1)?.prefixHash ?? '',
      blockCount: blocks.count,
      sharedBlocks: shared,
      blockHashes,
    };
  }
}

/**
 * Leading blocks two requests share. Prefix hashes chain every block before them, so equality
 * at one position implies equality at all earlier ones: a binary search finds the boundary.
 */
export function sharedPrefixLength(before: readonly BlockRecord[], after: readonly BlockRecord[]): number {
  return sharedLength(blockSequence(before), blockSequence(after));
}

function sharedLength(before: BlockSequence, after: BlockSequence): number {
  let low = 0;
  let high = Math.min(before.count, after.count);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (before.at(middle - 1)?.prefixHash === after.at(middle - 1)?.prefixHash) low = middle;
    else high = middle - 1;
  }
  return low;
}
