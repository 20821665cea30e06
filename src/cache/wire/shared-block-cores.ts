import { blockCore } from './anthropic-block-core.js';
import { type BlockCore, knownCore, sameBlock } from './block-core-memo.js';
import { isRecord, type JsonRecord } from './json-helpers.js';
import type { WireUnit } from './wire-unit.js';

/**
 * Where a frozen content's block finds its core without one more WeakMap entry per block (their
 * inserts were analyze's largest single line in normalisation, and every core stayed as long
 * as its block): `same`, this very content's units made at another index or for another role;
 * `previous`, the units of the content the session's last body sent at this index (a client that
 * moves its marker to its newest message sends its previous last message again, a new object
 * without the marker). A unit holds every field of its core.
 */
export interface SharedCores {
  same: readonly WireUnit[] | undefined;
  previousContent: readonly unknown[] | undefined;
  previous: readonly WireUnit[] | undefined;
}

export function sharedBlockCore(block: JsonRecord, blockIndex: number, cores: SharedCores): BlockCore {
  const same = cores.same?.[blockIndex];
  if (same) return same;
  const like = cores.previousContent?.[blockIndex];
  const likeUnit = cores.previous?.[blockIndex];
  if (likeUnit && isRecord(like) && (like === block || sameBlock(like, block))) return likeUnit;
  return knownCore(block, blockCore);
}
