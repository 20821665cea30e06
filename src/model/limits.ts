/** Size limits checked by validation. Generous defaults; every field can be overridden. */
export interface SizeLimits {
  /** Longest text of one block, in UTF-16 code units. */
  maxBlockChars: number;
  /** Largest base64 payload of one image or document. */
  maxMediaChars: number;
  maxTools: number;
  maxContentBlocksPerMessage: number;
  maxToolNameLength: number;
}

export const DEFAULT_SIZE_LIMITS: SizeLimits = {
  maxBlockChars: 4_000_000,
  maxMediaChars: 32_000_000,
  maxTools: 512,
  maxContentBlocksPerMessage: 1_000,
  maxToolNameLength: 128,
};
