/**
 * A request body sent as pieces, in order: under `--plan`, the client's bytes around the plan's
 * edits (views of the client's buffer, not copies) and the edits' own bytes. Joining them would
 * copy the whole body once more per request: for large bodies that doubles what the proxy
 * allocates outside the JavaScript heap, and with it how often the garbage collector runs its
 * full passes over everything the proxy holds. The node transport writes the pieces as they are.
 */
export interface BodyPieces {
  readonly pieces: readonly Uint8Array[];
  /** The pieces' lengths summed: the body's `content-length`. */
  readonly byteLength: number;
}

/** A body going upstream: the client's bytes as they came, or the plan's pieces of them. */
export type OutgoingBody = Uint8Array | BodyPieces;

/** The body in one buffer (a copy only when it is in pieces): for consumers that read it whole. */
export function joinedBody(body: OutgoingBody): Uint8Array {
  return body instanceof Uint8Array ? body : Buffer.concat(body.pieces, body.byteLength);
}

/** `pieces` as a body; a single piece is that piece. */
export function bodyOfPieces(pieces: readonly Uint8Array[]): OutgoingBody {
  if (pieces.length === 1) return pieces[0]!;
  let byteLength = 0;
  for (const piece of pieces) byteLength += piece.byteLength;
  return { pieces, byteLength };
}

/**
 * The body holding about its own size of memory, for keeping it: a view into a larger buffer (a
 * socket read, or the pool small buffers share) would keep all of that alive while a byte budget
 * counts only the view. Pieces are kept as they are while their buffers (the client's body and
 * the edits) hold at most twice the body's size (the plan may remove markers), else joined.
 */
export function compactBody(body: OutgoingBody): OutgoingBody {
  if (body instanceof Uint8Array) return body.byteLength === body.buffer.byteLength ? body : ownCopy(body);
  if (heldBytes(body.pieces) <= 2 * body.byteLength) return body;
  // Its own buffer: a small Buffer.concat would be a view into the shared pool again.
  const own = Buffer.allocUnsafeSlow(body.byteLength);
  let at = 0;
  for (const piece of body.pieces) {
    own.set(piece, at);
    at += piece.byteLength;
  }
  return own;
}

/** A copy in a buffer of its own (a Buffer's `slice` is a view, and a small `Buffer.from` is one of the pool). */
export function ownCopy(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}

/** The body's pieces in order (a whole body is one piece). */
export function piecesOf(body: OutgoingBody): readonly Uint8Array[] {
  return body instanceof Uint8Array ? [body] : body.pieces;
}

/** Bytes of the buffers `pieces` keep alive (each buffer once, however many views of it). */
export function heldBytes(pieces: readonly Uint8Array[]): number {
  let held = 0;
  for (const buffer of new Set(pieces.map((piece) => piece.buffer))) held += buffer.byteLength;
  return held;
}

/** Views of `body`'s bytes from `start`, `length` of them, piece by piece (no copy). */
export function rangeOf(body: OutgoingBody, start: number, length: number): Uint8Array[] {
  const views: Uint8Array[] = [];
  let at = 0;
  const end = start + length;
  for (const piece of piecesOf(body)) {
    if (at >= end) break;
    const from = Math.max(start, at);
    const to = Math.min(end, at + piece.byteLength);
    if (from < to) views.push(from === at && to === at + piece.byteLength ? piece : piece.subarray(from - at, to - at));
    at += piece.byteLength;
  }
  return views;
}
