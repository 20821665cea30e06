/** The proxy's receive stage: the client's body, read no further than the limit. */
type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);
const decoder = new TextDecoder();

/** The body up to `limit` bytes, or null when it is larger (read no further). */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
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

/** A JSON object from bytes, or null for anything else. */
export function parseJsonRecord(bytes: Uint8Array): JsonRecord | null {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(bytes));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
