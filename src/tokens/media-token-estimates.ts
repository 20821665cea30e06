/**
 * Tokens charged for media whose pixels or pages Cachet does not decode. These are fixed
 * estimates, used by every counter, exact or not: an image's real count depends on its size
 * and the provider's resizing rules.
 */
export interface MediaTokenEstimates {
  /** One image. */
  image: number;
  /** One base64 or URL document (PDF); plain-text documents are counted from their text. */
  document: number;
  /**
   * Measures a base64 image from its header when the provider's rule is known (the Anthropic
   * estimator uses `anthropicImageTokens`); null or absent falls back to `image`.
   */
  measureImage?: (base64: string, mediaType: string) => number | null;
}

/**
 * Defaults, chosen near the top of what one item costs so budgets err on the safe side.
 * - image: Anthropic bills about width×height/750 tokens and resizes images above ~1.15
 *   megapixels, so a full-size image costs about 1,600 tokens (docs.claude.com "Vision",
 *   checked 2026-11-21). OpenAI's high-detail 1024×1024 image costs 765 (85 + 4×170 tiles).
 * - document: Anthropic bills a PDF page as its extracted text plus a page image, about
 *   1,500-3,000 tokens per page (docs.claude.com "PDF support", checked 2026-11-21); one page
 *   at the top of that range.
 */
export const DEFAULT_MEDIA_TOKENS: MediaTokenEstimates = { image: 1_600, document: 3_000 };
