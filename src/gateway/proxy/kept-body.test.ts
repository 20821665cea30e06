import { describe, expect, it } from 'vitest';
import { bodyOfPieces, joinedBody, type OutgoingBody, rangeOf } from './body-pieces.js';
import { equalRange, equalUpTo, keptSharing, noteSharedPrefix, sharedPrefixLength } from './kept-body.js';

/** Deterministic bytes: `length` of them from `seed`. */
function bytesOf(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) bytes[index] = (index * 31 + seed * 7 + (index >> 9)) & 0xff;
  return bytes;
}

const naivePrefix = (left: Uint8Array, right: Uint8Array) => {
  let at = 0;
  while (at < left.byteLength && at < right.byteLength && left[at] === right[at]) at++;
  return at;
};

const buffersOf = (body: OutgoingBody) => (body instanceof Uint8Array ? [body.buffer] : body.pieces.map((piece) => piece.buffer));

describe('sharedPrefixLength and equalUpTo', () => {
  const base = bytesOf(300_000, 1);
  // Differences at the start, inside the bytewise window, past several halvings, at the last byte; a longer and a shorter body.
  const variants: Uint8Array[] = [0, 1, 4095, 4096, 70_001, 150_000, 299_999].map((at) => {
    const copy = Buffer.from(base);
    copy[at] = copy[at]! ^ 0x5a;
    return copy;
  });
  variants.push(Buffer.concat([base, bytesOf(10, 2)]), base.subarray(0, 123_456), Buffer.from(base));

  it('finds the first difference as a byte-by-byte walk does, whole or in pieces', () => {
    const pieces = bodyOfPieces([base.subarray(0, 5000), base.subarray(5000, 200_000), base.subarray(200_000)]);
    for (const variant of variants) {
      const expected = naivePrefix(base, variant);
      expect(sharedPrefixLength(base, variant)).toBe(expected);
      expect(sharedPrefixLength(pieces, variant)).toBe(expected);
      expect(equalUpTo(pieces, variant, expected)).toBe(true);
      if (expected < Math.min(base.byteLength, variant.byteLength)) expect(equalUpTo(pieces, variant, expected + 1)).toBe(false);
    }
  });
});

describe('rangeOf and equalRange over pieces', () => {
  it('read the same bytes as the joined body, across piece boundaries, and compare ranges as Buffer.compare does', () => {
    const base = bytesOf(20_000, 5);
    const pieces = bodyOfPieces([base.subarray(0, 3), base.subarray(3, 9000), base.subarray(9000, 9001), base.subarray(9001)]);
    const edited = Buffer.from(base);
    edited[9000] = edited[9000]! ^ 1;
    for (const [start, length] of [
      [0, 0],
      [0, 3],
      [2, 2],
      [3, 8997],
      [8999, 3],
      [9000, 1],
      [100, 19_900],
      [0, 20_000],
    ] as const) {
      expect(Buffer.concat(rangeOf(pieces, start, length)).equals(base.subarray(start, start + length))).toBe(true);
      expect(equalRange(pieces, start, base, start, length)).toBe(true);
      // The same bytes elsewhere in the other body: offsets on either side are their own.
      const shifted = Buffer.concat([bytesOf(7, 9), base]);
      expect(equalRange(pieces, start, shifted, start + 7, length)).toBe(true);
      const touchesEdit = start <= 9000 && 9000 < start + length;
      expect(equalRange(pieces, start, edited, start, length)).toBe(!touchesEdit);
    }
    // Past either end: not equal.
    expect(equalRange(pieces, 19_999, base, 19_999, 2)).toBe(false);
    expect(equalRange(pieces, 0, base.subarray(0, 10), 5, 6)).toBe(false);
  });
});

describe('keptSharing', () => {
  it('keeps the next body equal to its bytes, never in their memory, sharing the last kept body’s', () => {
    const last = Uint8Array.prototype.slice.call(bytesOf(200_000, 3)) as Uint8Array;
    const next = Buffer.concat([last, bytesOf(5000, 4)]);
    const kept = keptSharing(last, next);
    expect(Buffer.from(joinedBody(kept)).equals(next)).toBe(true);
    expect(buffersOf(kept)).not.toContain(next.buffer);
    expect(buffersOf(kept)).toContain(last.buffer);
    expect(kept.byteLength).toBe(next.byteLength);
    // The same bytes again: nothing new is copied.
    const again = keptSharing(kept, Buffer.from(next));
    expect(new Set(buffersOf(again))).toEqual(new Set(buffersOf(kept)));
  });

  it('copies whole when nothing is shared, and when the shared memory would pass the body’s size by a quarter', () => {
    const next = bytesOf(50_000, 5);
    const alone = keptSharing(undefined, next);
    expect(alone).toBeInstanceOf(Uint8Array);
    expect(buffersOf(alone)).not.toContain(next.buffer);
    const different = keptSharing(bytesOf(50_000, 6), next);
    expect(different).toBeInstanceOf(Uint8Array);
    // A long last body of which the next keeps only a small start.
    const long = Uint8Array.prototype.slice.call(bytesOf(130_000, 7)) as Uint8Array;
    const short = Buffer.concat([long.subarray(0, 60_000), bytesOf(40_000, 8)]);
    const kept = keptSharing(long, short);
    expect(buffersOf(kept)).not.toContain(long.buffer);
    expect(Buffer.from(joinedBody(kept)).equals(short)).toBe(true);
  });

  it('copies whole past 16 pieces', () => {
    let kept: OutgoingBody = Uint8Array.prototype.slice.call(bytesOf(100_000, 9)) as Uint8Array;
    let bytes = Buffer.from(joinedBody(kept));
    for (let step = 0; step < 20; step++) {
      bytes = Buffer.concat([bytes, bytesOf(100, step)]);
      kept = keptSharing(kept, bytes);
      expect(kept instanceof Uint8Array || kept.pieces.length <= 16).toBe(true);
      expect(Buffer.from(joinedBody(kept)).equals(bytes)).toBe(true);
    }
  });
});

describe('noteSharedPrefix', () => {
  it('spares keptSharing the bytes a reader compared against the same last body, and only those', () => {
    const last = Uint8Array.prototype.slice.call(bytesOf(100_000, 10)) as Uint8Array;
    const next = Buffer.from(last);
    next[10] = next[10]! ^ 1; // differs early
    // A note about another body is not trusted: the difference is found.
    noteSharedPrefix(next, { body: bytesOf(100_000, 10), bytes: 100_000 });
    expect(Buffer.from(joinedBody(keptSharing(last, next))).equals(next)).toBe(true);
    // A note about this last body is trusted (here a false one, to show its bytes are not compared again).
    const trusted = Buffer.from(next);
    noteSharedPrefix(trusted, { body: last, bytes: 100_000 });
    expect(Buffer.from(joinedBody(keptSharing(last, trusted))).equals(last)).toBe(true);
  });
});
