import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import { isRecord } from './json-helpers.js';

/** Anthropic resizes images whose long edge exceeds this many pixels (docs.claude.com "Vision", 2026). */
const MAX_LONG_EDGE = 1568;
/** ...and images above about this many pixels. */
const MAX_PIXELS = 1_150_000;
/** Tokens ≈ width × height / 750 after resizing. */
const PIXELS_PER_TOKEN = 750;

/**
 * Tokens of one Anthropic image block source. Base64 PNGs are measured from their header
 * (the IHDR width and height); other images cost the default full-size estimate.
 */
export function imageTokensFromSource(source: unknown): number {
  if (!isRecord(source) || source.type !== 'base64' || typeof source.data !== 'string') return DEFAULT_MEDIA_TOKENS.image;
  const size = pngSize(source.data);
  if (!size) return DEFAULT_MEDIA_TOKENS.image;
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
