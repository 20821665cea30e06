/**
 * A request body read up to `limit` bytes, or null as soon as it is known to be larger: a
 * declared `content-length` over the limit is refused before reading, and a chunked body is
 * refused at the first chunk past the limit, so an oversized upload is never buffered whole.
 *
 * @example
 * const bytes = await readLimitedBody(request, 32 * 1024 * 1024);
 * if (bytes === null) return new Response('too large', { status: 413 });
 */
export async function readLimitedBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return null;
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A client that left (or broke its connection) while its body was being read. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client went away while sending its body');
    this.name = 'ClientGoneError';
  }
}

/**
 * `readLimitedBody` for a node:http request: null as soon as the body is known to be larger
 * than `limit` (a declared `content-length` before reading, a chunked body at the first chunk
 * past it; the rest is not read), else the body in one buffer: the single chunk it came in, or
 * the chunks copied into `into(size)` when given (memory the caller reuses; null: a new buffer).
 * A body with a declared length that comes in several chunks is copied into `into(length)` chunk
 * by chunk as it arrives: each socket chunk then dies young instead of living (and being
 * promoted, its memory counted as external since the last full collection) until the last one
 * came. Rejects with `ClientGoneError` when the client leaves mid-body.
 */
export function readIncomingLimited(
  incoming: import('node:http').IncomingMessage,
  limit: number,
  into?: (size: number) => Buffer | null,
): Promise<Buffer | null> {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(null);
  const known = incoming.headers['content-length'] !== undefined && Number.isSafeInteger(declared) && declared >= 0;
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    // The caller's memory, filled as chunks arrive (a declared length, more than one chunk).
    let target: Buffer | null = null;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onGone);
      incoming.off('aborted', onGone);
      // A connection reset after this point is the server's business, never an uncaught error.
      incoming.on('error', () => {});
    };
    const onData = (chunk: Buffer) => {
      const filled = size;
      size += chunk.byteLength;
      if (size > limit) {
        stop();
        incoming.pause();
        resolve(null);
        return;
      }
      if (target === null && into && known && chunks.length === 1 && size <= declared) {
        target = into(declared);
        if (target) {
          chunks[0]!.copy(target, 0);
          chunks = [];
        }
      }
      if (target === null) {
        chunks.push(chunk);
      } else if (size <= target.byteLength) {
        chunk.copy(target, filled);
      } else {
        // More than declared (the parser does not let that through): collected as a chunked body is.
        chunks = [Buffer.from(target.subarray(0, filled)), chunk];
        target = null;
      }
    };
    const onEnd = () => {
      stop();
      if (target !== null) return resolve(size === target.byteLength ? target : Buffer.from(target.subarray(0, size)));
      if (chunks.length === 1) return resolve(chunks[0]!);
      const end = into?.(size) ?? null;
      if (!end) return resolve(Buffer.concat(chunks, size));
      let offset = 0;
      for (const chunk of chunks) offset += chunk.copy(end, offset);
      resolve(end);
    };
    const onGone = () => {
      stop();
      reject(new ClientGoneError());
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onGone);
    incoming.on('aborted', onGone);
  });
}
