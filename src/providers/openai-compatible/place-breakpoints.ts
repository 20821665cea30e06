import { sha256 } from '../../model/hash.js';
import type { CompatFlags } from './models.js';

/**
 * Local engines place no breakpoints: llama.cpp reuses the longest common token prefix of the
 * slot's previous prompt and generation, vLLM and SGLang hash full token blocks automatically.
 * What decides reuse is that the rendered prompt is stable (the chat template, see
 * `compat` flags) and that the session reaches the same engine and slot. These are the hints.
 */
export interface CacheHints {
  cache_prompt?: boolean;
  id_slot?: number;
  user?: string;
  session_id?: string;
}

/**
 * Body fields that keep one session on one engine slot.
 *
 * @example
 * cacheHints('s1', { ...DEFAULT_COMPAT_FLAGS, cachePrompt: true, slotCount: 4 }) // { cache_prompt: true, id_slot: 2 }
 */
export function cacheHints(sessionId: string, flags: CompatFlags): CacheHints {
  const hints: CacheHints = {};
  if (flags.cachePrompt) hints.cache_prompt = true;
  if (flags.slotCount !== null && flags.slotCount > 0) hints.id_slot = slotFor(sessionId, flags.slotCount);
  if (flags.sessionKeyField === 'user') hints.user = sessionId;
  else if (flags.sessionKeyField === 'session_id') hints.session_id = sessionId;
  return hints;
}

/** A stable slot for a session: the same in every process, spread evenly over the slots. */
export function slotFor(sessionId: string, slotCount: number): number {
  return Number.parseInt(sha256(sessionId).slice(0, 8), 16) % slotCount;
}
