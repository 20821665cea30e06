import type { CanonicalRequest, Zone } from '../model/request.js';
import { type BlockBytes, blockBytes, excerptAround, firstDifference, utf8Length } from './block-bytes.js';

/** Where two requests stop sharing bytes. */
export interface PrefixDivergence {
  /** Index in `blocks` of the first block that differs (or exists on one side only). */
  blockIndex: number;
  /** Zone and path of that block on each side (`null` when that side has no such block). */
  a: { zone: Zone; path: string; excerpt: string } | null;
  b: { zone: Zone; path: string; excerpt: string } | null;
  /** Offset in UTF-8 bytes of the first differing byte inside the block's canonical bytes. */
  byteOffsetInBlock: number;
}

export interface CommonPrefix {
  /** Whole blocks the two requests share from the start. */
  blocks: number;
  /** Canonical bytes shared, including the common start of the first differing block. */
  bytes: number;
  /** Zone of the last whole common block (`null` when not even the first block is shared). */
  zone: Zone | null;
  /** Zone in which the requests diverge (`null` when one request is a prefix of the other). */
  divergedIn: Zone | null;
  /** `null` when the requests are identical block for block. */
  divergence: PrefixDivergence | null;
}

/**
 * The longest common prefix of two requests, in blocks and in canonical bytes, and where they
 * diverge. Blocks are compared by cumulative prefix hash, so the first mismatch is the first
 * block whose bytes, or whose predecessors' bytes, differ. Different models share no prefix:
 * every provider keys its cache on the model.
 *
 * @example
 * const common = longestCommonPrefix(first, second);
 * common.blocks;     // 14
 * common.divergedIn; // 'tail'
 */
export function longestCommonPrefix(a: CanonicalRequest, b: CanonicalRequest): CommonPrefix {
  if (a.model !== b.model) {
    const aBytes = blockBytes(a);
    const bBytes = blockBytes(b);
    return {
      blocks: 0,
      bytes: 0,
      zone: null,
      divergedIn: aBytes[0]?.zone ?? bBytes[0]?.zone ?? null,
      divergence: divergenceAt(aBytes, bBytes, 0),
    };
  }
  const length = Math.min(a.blocks.length, b.blocks.length);
  let common = 0;
  while (common < length && a.blocks[common]?.prefixHash === b.blocks[common]?.prefixHash) common++;
  if (common === a.blocks.length && common === b.blocks.length) {
    return {
      blocks: common,
      bytes: sumBytes(blockBytes(a), common),
      zone: a.blocks[common - 1]?.zone ?? null,
      divergedIn: null,
      divergence: null,
    };
  }
  const aBytes = blockBytes(a);
  const bBytes = blockBytes(b);
  const divergence = divergenceAt(aBytes, bBytes, common);
  const bothPresent = divergence.a !== null && divergence.b !== null;
  return {
    blocks: common,
    bytes: sumBytes(aBytes, common) + divergence.byteOffsetInBlock,
    zone: a.blocks[common - 1]?.zone ?? null,
    divergedIn: bothPresent ? (divergence.a?.zone ?? null) : null,
    divergence,
  };
}

function sumBytes(blocks: readonly BlockBytes[], count: number): number {
  let total = 0;
  for (let index = 0; index < count; index++) total += utf8Length(blocks[index]?.text ?? '');
  return total;
}

function divergenceAt(aBytes: readonly BlockBytes[], bBytes: readonly BlockBytes[], index: number): PrefixDivergence {
  const left = aBytes[index];
  const right = bBytes[index];
  const offset = left && right ? firstDifference(left.text, right.text) : 0;
  return {
    blockIndex: index,
    a: left ? { zone: left.zone, path: left.path, excerpt: excerptAround(left.text, offset) } : null,
    b: right ? { zone: right.zone, path: right.path, excerpt: excerptAround(right.text, offset) } : null,
    byteOffsetInBlock: left ? utf8Length(left.text.slice(0, offset)) : 0,
  };
}
