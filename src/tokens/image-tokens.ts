/** Anthropic resizes images whose long edge exceeds this many pixels (docs.claude.com "Vision", 2026). */
const MAX_LONG_EDGE = 1568;
/** ...and images above about this many pixels. */
const MAX_PIXELS = 1_150_000;
/** Tokens ≈ width × height / 750 after resizing. */
const PIXELS_PER_TOKEN = 750;

/**
 * Tokens Anthropic bills for a base64 PNG, from the width and height in its header and the
 * documented resizing rule; null when the data is not a PNG (the caller's fixed estimate applies).
 *
 * @example
 * anthropicImageTokens(syntheticPng(200, 100, 'seed').toString('base64')); // 27 (200×100 / 750)
 */
export function anthropicImageTokens(base64: string): number | null {
  const size = pngSize(base64);
  if (!size) return null;
  let { width, height } = size;
  const edgeScale = Math.min(1, MAX_LONG_EDGE / Math.max(width, height));
  width *= edgeScale;
  height *= edgeScale;
  const pixelScale = Math.min(1, Math.sqrt(MAX_PIXELS / (width * height)));
  return Math.max(1, Math.ceil((width * pixelScale * height * pixelScale) / PIXELS_PER_TOKEN));
}

function pngSize(base64: string): { width: number; height: number } | null {
  // 24 bytes cover the signature and the IHDR width/height; 32 base64 characters decode to 24.
  const head = Buffer.from(base64.slice(0, 32), 'base64');
  if (head.length < 24 || head.readUInt32BE(0) !== 0x89504e47) return null;
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  return width > 0 && height > 0 ? { width, height } : null;
}
