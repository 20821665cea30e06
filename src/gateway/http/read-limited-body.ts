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
