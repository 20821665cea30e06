import type { ProviderCacheMissReason } from '../../model/usage.js';

/**
 * One line of a proxy capture (JSONL), also the input `cachet analyze` reads. Bodies are as the
 * client sent them (`sent` holds the rewritten body under `--plan`); headers, and so API keys,
 * are never captured.
 */
export interface CaptureRecord {
  /** Request start, ms since the epoch. */
  at: number;
  conversation: string;
  /** Wire API of the body: anthropic, openai-chat, openai-responses or openrouter. */
  provider: string;
  body: unknown;
  sent?: unknown;
  /** The provider's usage object as reported. */
  usage: unknown;
  responseId: string | null;
  cacheMissReason?: ProviderCacheMissReason | null;
  status: number;
  /** Time to the last byte of the reply, ms. */
  durationMs: number;
}
