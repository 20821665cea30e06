import { deepFreeze, isDeepFrozen } from '../../model/freeze.js';
import type { JsonRecord } from './json-helpers.js';
import type { WireUnit } from './wire-unit.js';

/** What a block's unit holds apart from where it sits and its marker. */
export type BlockCore = Pick<WireUnit, 'text' | 'tokenText' | 'tokenKind' | 'countable' | 'fixedTokens' | 'kind'>;

/**
 * Cores of frozen blocks: a session's converted history shares one frozen wire object per block
 * across requests (`convertPersistedBlock`), so its JSON is written once, not on every request.
 * A frozen block cannot change, and a core leaves `cache_control` out.
 */
const frozenCores = new WeakMap<(block: JsonRecord) => BlockCore, WeakMap<object, BlockCore>>();

/** Past this depth two values are not compared (the core is computed): no deep recursion on hostile bodies. */
const MAX_COMPARED_DEPTH = 64;

interface Seen {
  /**
   * The block the core was made from, as it was then: the caller's object when deep-frozen,
   * otherwise a frozen copy (a caller may edit its own object in place after the judge, and
   * comparing the edited object with itself would keep the old core).
   */
  block: JsonRecord;
  core: BlockCore;
  /** The unit made from `core` at this position (`unit()`), handed back while role and marker stay the same. */
  unit: WireUnit | null;
}

/**
 * The previous body's block cores by position, for one conversation's successive bodies (a cache
 * model keeps one): a block equal to the one at the same position last time (same keys in the
 * same order, same values; its marker aside) reuses that block's core instead of writing its
 * JSON again. Comparing two parsed blocks reads their bytes once and allocates nothing, where
 * writing the JSON allocates the text anew: a captured conversation repeats its whole history
 * in every request. Equal texts are then the same string, which later comparisons of unit texts
 * settle by reference.
 */
export class BlockCoreMemo {
  private previous: Array<Array<Seen | undefined>> = [];
  private current: Array<Array<Seen | undefined>> = [];

  /**
   * `reference`: another memo whose current body holds the blocks this one's bodies copy (the
   * plan of `cachet analyze` copies each block of the client's body to move its marker): a block
   * equal to the reference's block at the same position takes its core (the core is shared, so
   * the unit texts of both compare by reference).
   */
  constructor(private readonly reference?: BlockCoreMemo) {}

  /** Forget every body seen (a conversation starting over). */
  forget(): void {
    this.previous = [];
    this.current = [];
  }

  /** Start a new body: what the last one recorded becomes the reference. */
  begin(): void {
    this.previous = this.current;
    this.current = [];
  }

  /** The core of `block` at `list` (0 tools, 1 system, 2 + message index) and `index`. */
  core(list: number, index: number, block: JsonRecord, compute: (block: JsonRecord) => BlockCore): BlockCore {
    const seen = this.previous[list]?.[index];
    let record: Seen;
    const source = this.reference?.current[list]?.[index];
    // An equal block keeps the record and the object first seen: the new body's parsed objects
    // then die young, where moving every record to them promoted each body to the old generation.
    if (source && (source.block === block || sameBlock(source.block, block))) {
      if (seen && seen.core === source.core) {
        record = seen;
      } else {
        record = { block: source.block, core: source.core, unit: null };
      }
    } else if (seen && (seen.block === block || sameBlock(seen.block, block))) {
      // The previous body's record serves this body too (its unit stays for `reusableUnit`).
      record = seen;
    } else {
      record = { block: asSeen(block), core: cachedCore(block, compute), unit: null };
    }
    let row = this.current[list];
    if (row === undefined) {
      row = [];
      this.current[list] = row;
    }
    row[index] = record;
    return record.core;
  }

  /**
   * The previous body's unit at `list` and `index` when it was made from `core` with this
   * `role` and `breakpoint` (its path is the position's): handing back the same object lets
   * every later pass over the units (token totals, prefix hashes, the break detector's
   * comparison) settle repeated history by reference. Call after `core()` for the position.
   */
  reusableUnit(
    list: number,
    index: number,
    core: BlockCore,
    role: string | null,
    breakpoint: WireUnit['breakpoint'],
  ): WireUnit | null {
    const unit = this.previous[list]?.[index]?.unit;
    return unit && this.previous[list]![index]!.core === core && unit.role === role && unit.breakpoint === breakpoint
      ? unit
      : null;
  }

  /** Remember the unit made at `list` and `index` of this body (after `core()`), for `reusableUnit` on the next. */
  keepUnit(list: number, index: number, unit: WireUnit): WireUnit {
    const seen = this.current[list]?.[index];
    if (seen) seen.unit = unit;
    return unit;
  }
}

/**
 * The block to compare later bodies with: itself when deep-frozen (it cannot change), otherwise a
 * deep-frozen copy of its JSON, made once when the block is first seen (same keys in the same order).
 */
function asSeen(block: JsonRecord): JsonRecord {
  return isDeepFrozen(block) ? block : deepFreeze(JSON.parse(JSON.stringify(block)) as JsonRecord);
}

/**
 * `compute(block)`, memoised when the block is frozen. `like`: a block that may be this one's
 * earlier copy (the one a session's last body sent at the same position): when its core is known
 * (it was frozen when computed, so it still holds) and the two are the same JSON but for the
 * marker, that core is this block's too. A client that moves its marker to its newest message
 * sends its previous last message again, a new object without the marker: its JSON is not
 * written again, and the two units' texts are one string.
 */
export function cachedCore(block: JsonRecord, compute: (block: JsonRecord) => BlockCore, like?: unknown): BlockCore {
  if (!isDeepFrozen(block)) return compute(block);
  let byBlock = frozenCores.get(compute);
  if (byBlock === undefined) {
    byBlock = new WeakMap();
    frozenCores.set(compute, byBlock);
  }
  let core = byBlock.get(block);
  if (core === undefined) {
    const likeCore = typeof like === 'object' && like !== null && like !== block ? byBlock.get(like) : undefined;
    core = likeCore !== undefined && sameBlock(like as JsonRecord, block) ? likeCore : compute(block);
    byBlock.set(block, core);
  }
  return core;
}

/**
 * The core `cachedCore` remembered for `block`, else `compute(block)` without remembering it (a
 * frozen message's blocks: its shared units serve as their cores, see `sharedBlockCore`).
 */
export function knownCore(block: JsonRecord, compute: (block: JsonRecord) => BlockCore): BlockCore {
  return frozenCores.get(compute)?.get(block) ?? compute(block);
}

/** The same JSON once `cache_control` is left out of both (key order counts, as in the JSON text). */
export function sameBlock(left: JsonRecord, right: JsonRecord): boolean {
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  let leftAt = 0;
  let rightAt = 0;
  for (;;) {
    while (leftAt < leftKeys.length && leftKeys[leftAt] === 'cache_control') leftAt++;
    while (rightAt < rightKeys.length && rightKeys[rightAt] === 'cache_control') rightAt++;
    if (leftAt === leftKeys.length || rightAt === rightKeys.length) {
      return leftAt === leftKeys.length && rightAt === rightKeys.length;
    }
    const key = leftKeys[leftAt] as string;
    if (key !== rightKeys[rightAt] || !sameJson(left[key], right[key], 1)) return false;
    leftAt++;
    rightAt++;
  }
}

function sameJson(left: unknown, right: unknown, depth: number): boolean {
  if (left === right) return left !== undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (depth > MAX_COMPARED_DEPTH) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!sameJson(left[index], right[index], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  for (let index = 0; index < leftKeys.length; index++) {
    const key = leftKeys[index] as string;
    if (key !== rightKeys[index]) return false;
    if (!sameJson((left as JsonRecord)[key], (right as JsonRecord)[key], depth + 1)) return false;
  }
  return true;
}
