import type { CacheModel } from '../../cache/models/cache-verdict.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { type ReplySource, replySource, type ScriptedReply } from './reply-script.js';
import { ResponsesStore, type ResponsesStoreStats } from './responses-store.js';

/** What one emulator keeps between requests: provider caches, reply order, ids, and earlier prompts for diagnostics. */
export interface EmulatorState {
  anthropicCache: CacheModel;
  openaiCache: CacheModel;
  /** OpenRouter: Anthropic rules on `anthropic/*` routes, automatic caching elsewhere. */
  openrouterCache: CacheModel;
  anthropicCounter: TokenCounter;
  openaiCounter: TokenCounter;
  replies: ReplySource;
  /** Next id with a prefix: `msg_emu_000001`; ids are deterministic per emulator. */
  nextId(prefix: string): string;
  /** Fingerprints of earlier Anthropic requests by response id, for `diagnostics.previous_message_id`. */
  remember(id: string, fingerprint: PromptFingerprint): void;
  recall(id: string): PromptFingerprint | undefined;
  /**
   * Responses API conversations kept for `previous_response_id` (responses created with `store`
   * not false): the input items up to and including that response's output.
   */
  storeResponse(id: string, items: readonly unknown[]): void;
  storedResponse(id: string): readonly unknown[] | undefined;
  /** The Responses store's size, budget and evictions. */
  responsesStats(): ResponsesStoreStats;
}

/** An Anthropic request reduced to the levels the server's diagnostics compare. */
export interface PromptFingerprint {
  model: string;
  tools: string;
  system: string;
  params: string;
  /** Identity of each message-zone unit, in order. */
  messages: string[];
  /** Tokens that request left readable in the cache (read + written). */
  cachedTokens: number;
}

/** Fingerprints kept for diagnostics; older ones are forgotten (the real API keeps a window too). */
const REMEMBERED_PROMPTS = 10_000;
/**
 * @param responsesStoreBytes budget of the Responses store (JSON bytes); the oldest responses
 *   are forgotten first, and their ids then answer 400 like unknown ones.
 */
export function createEmulatorState(replies: readonly ScriptedReply[] = [], responsesStoreBytes?: number): EmulatorState {
  const anthropicCounter = anthropicEstimator();
  const openaiCounter = openAICounterOrEstimate();
  const fingerprints = new Map<string, PromptFingerprint>();
  const responses = new ResponsesStore(responsesStoreBytes);
  let sequence = 0;
  return {
    anthropicCache: createCacheModel('anthropic', { counter: anthropicCounter }),
    openaiCache: createCacheModel('openai-chat', { counter: openaiCounter }),
    openrouterCache: createCacheModel('openrouter', {
      anthropic: { counter: anthropicCounter },
      openai: { counter: openaiCounter },
    }),
    anthropicCounter,
    openaiCounter,
    replies: replySource(replies),
    nextId(prefix) {
      sequence++;
      return `${prefix}${String(sequence).padStart(6, '0')}`;
    },
    remember(id, fingerprint) {
      if (fingerprints.size >= REMEMBERED_PROMPTS) fingerprints.delete(fingerprints.keys().next().value as string);
      fingerprints.set(id, fingerprint);
    },
    recall(id) {
      return fingerprints.get(id);
    },
    storeResponse(id, items) {
      responses.set(id, items);
    },
    storedResponse(id) {
      return responses.get(id);
    },
    responsesStats() {
      return responses.stats();
    },
  };
}
