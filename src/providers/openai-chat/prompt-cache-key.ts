import { sha256 } from '../../model/hash.js';

/** OpenAI rejects longer `prompt_cache_key` values (the same limit as `safety_identifier`). */
export const PROMPT_CACHE_KEY_MAX_LENGTH = 64;

/**
 * The routing key for a session: the session id itself when it fits, otherwise a stable
 * digest of it. One key per session keeps a session's requests on the machines that hold its
 * prefix; the key never contains a clock or random value, so it is the same in every process.
 *
 * @example
 * derivePromptCacheKey('s-42') // 's-42'
 */
export function derivePromptCacheKey(sessionId: string): string {
  if (sessionId.length <= PROMPT_CACHE_KEY_MAX_LENGTH) return sessionId;
  return `cachet-${sha256(sessionId).slice(0, 40)}`;
}
