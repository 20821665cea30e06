import { anthropicImageTokens } from '../../tokens/image-tokens.js';
import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import { isRecord } from './json-helpers.js';

/**
 * Tokens of one Anthropic image block source. Base64 PNGs are measured from their header
 * (`anthropicImageTokens`, as the Anthropic estimator counts canonical images); other images
 * cost the default full-size estimate.
 */
export function imageTokensFromSource(source: unknown): number {
  if (!isRecord(source) || source.type !== 'base64' || typeof source.data !== 'string') return DEFAULT_MEDIA_TOKENS.image;
  return anthropicImageTokens(source.data) ?? DEFAULT_MEDIA_TOKENS.image;
}
