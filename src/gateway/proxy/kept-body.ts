import { bodyOfPieces, heldBytes, type OutgoingBody, ownCopy, piecesOf, rangeOf } from './body-pieces.js';

/** A kept body in more pieces than this is copied whole into memory of its own. */
const KEPT_PIECES = 16;
/** The memory a kept body's pieces keep alive, at most, for each byte of it (the byte budget counts bytes). */
const HELD_PER_BYTE = 1.25;
/** Below this many differing bytes, the first difference is looked for byte by byte. */
const BYTEWISE_BELOW = 4096;

/**
 * A conversation's next body as the tracker keeps it, sharing memory with the body it kept last:
 * the bytes both share from their start are views of the last one's memory, only the rest is
 * copied. A conversation's next body repeats its history, so keeping it costs a copy of its new
 * messages, not a new buffer of its whole size per request (which, at hundreds of KB every few
 * milliseconds, makes the garbage collector run full collections). Never a view of `next`
 * itself, whose memory may be lent (`BodyLease`). Whole copy when there is nothing to share,
 * when it would be in more than 16 pieces, or when the memory it keeps alive would exceed its size
 * by more than a quarter (a history edited early on).
 */
export function keptSharing(last: OutgoingBody | undefined, next: Uint8Array): OutgoingBody {
  const known = knownShared.get(next);
  const shared = last ? sharedPrefixLength(last, next, known?.body === last ? known.bytes : 0) : 0;
  if (shared === 0) return ownCopy(next);
  const pieces = prefixPieces(last!, shared);
  if (shared < next.byteLength) pieces.push(ownCopy(next.subarray(shared)));
  if (pieces.length > KEPT_PIECES || heldBytes(pieces) > HELD_PER_BYTE * next.byteLength) return ownCopy(next);
  return bodyOfPieces(pieces);
}

/** `bytes` leading bytes of a body known equal to `body`'s (a key-field read compared them). */
export interface KnownSharedPrefix {
  body: OutgoingBody;
  bytes: number;
}

const knownShared = new WeakMap<Uint8Array, KnownSharedPrefix>();

/** What a reader found `bytes` share with a kept body: `keptSharing` then compares only the rest. */
export function noteSharedPrefix(bytes: Uint8Array, shared: KnownSharedPrefix | null): void {
  if (shared) knownShared.set(bytes, shared);
}

/** How many bytes from the start `body` and `bytes` share (the first `known` of them known equal). */
export function sharedPrefixLength(body: OutgoingBody, bytes: Uint8Array, known = 0): number {
  let at = 0;
  for (const piece of piecesOf(body)) {
    const length = Math.min(piece.byteLength, bytes.byteLength - at);
    if (length <= 0) break;
    // Bytes already known equal are skipped, not compared again.
    const skip = Math.min(length, Math.max(0, known - at));
    const equal = skip + equalPrefix(piece.subarray(skip, length), bytes.subarray(at + skip, at + length));
    at += equal;
    if (equal < length) break;
  }
  return at;
}

/** Whether `body` and `bytes` are equal up to `at` (both at least that long). */
export function equalUpTo(body: OutgoingBody, bytes: Uint8Array, at: number): boolean {
  if (body.byteLength < at || bytes.byteLength < at) return false;
  let offset = 0;
  for (const piece of piecesOf(body)) {
    if (offset >= at) break;
    const length = Math.min(piece.byteLength, at - offset);
    if (Buffer.compare(piece.subarray(0, length), bytes.subarray(offset, offset + length)) !== 0) return false;
    offset += length;
  }
  return true;
}

/** Whether `body`'s bytes from `bodyStart` equal `bytes`' from `bytesStart`, `length` of them (false when either is shorter). */
export function equalRange(
  body: OutgoingBody,
  bodyStart: number,
  bytes: Uint8Array,
  bytesStart: number,
  length: number,
): boolean {
  if (body.byteLength < bodyStart + length || bytes.byteLength < bytesStart + length) return false;
  let at = bytesStart;
  for (const view of rangeOf(body, bodyStart, length)) {
    if (Buffer.compare(view, bytes.subarray(at, at + view.byteLength)) !== 0) return false;
    at += view.byteLength;
  }
  return true;
}

/** The length of the equal prefix of two same-length byte ranges: halving the range still unknown. */
function equalPrefix(left: Uint8Array, right: Uint8Array): number {
  if (Buffer.compare(left, right) === 0) return left.byteLength;
  // [0, low) is equal; a difference lies in [low, high).
  let low = 0;
  let high = left.byteLength;
  while (high - low > BYTEWISE_BELOW) {
    const middle = (low + high) >>> 1;
    if (Buffer.compare(left.subarray(low, middle), right.subarray(low, middle)) === 0) low = middle;
    else high = middle;
  }
  while (low < high && left[low] === right[low]) low++;
  return low;
}

/** Views of `body`'s first `length` bytes, piece by piece. */
function prefixPieces(body: OutgoingBody, length: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let left = length;
  for (const piece of piecesOf(body)) {
    if (left <= 0) break;
    pieces.push(piece.byteLength <= left ? piece : piece.subarray(0, left));
    left -= piece.byteLength;
  }
  return pieces;
}
