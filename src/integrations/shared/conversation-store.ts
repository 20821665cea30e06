import { type BreakDetector, createBreakDetector } from '../../cache/break/break-detector.js';
import type { EventBus } from '../../events/event-bus.js';
import { ValidationError } from '../../model/errors.js';
import type { AnthropicCacheState } from '../../providers/anthropic/place-breakpoints.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { PromptBlockHash } from './plan-prompt-breakpoints.js';
import { createTurnTailState, type TurnTailState } from './turn-tail.js';
import { createVolatileState, type VolatileState } from './volatile-auto.js';

/** What a middleware remembers about one conversation between its calls. */
export interface ConversationState {
  /** The previous request's cache entries, for the lookback guard. */
  previous: AnthropicCacheState | null;
  detector: BreakDetector;
  /** The previous request's block hashes, for `sharedBlocks`. */
  blocks: PromptBlockHash[];
  /** Turn-scoped tail texts and the figures that choose tail scopes. */
  turnTail: TurnTailState;
  /** `volatile: 'auto'`: the system paragraphs known static and the previous call's moved ones. */
  volatile: VolatileState;
}

export interface ConversationStore {
  /** The state of a conversation, created on first use; marks it most recently used. */
  get(conversationId: string): ConversationState;
  readonly size: number;
}

/**
 * Per-middleware-instance conversation state, bounded: past `maxConversations` the least
 * recently used conversation is dropped (its next call starts like a first call).
 */
export function createConversationStore(options: {
  maxConversations?: number;
  counter: TokenCounter;
  bus?: EventBus | undefined;
}): ConversationStore {
  const maxConversations = options.maxConversations ?? 256;
  if (!Number.isInteger(maxConversations) || maxConversations < 1) {
    throw new ValidationError('options.maxConversations', 'a positive integer', `got ${String(options.maxConversations)}`);
  }
  const conversations = new Map<string, ConversationState>();
  return {
    get(conversationId) {
      let state = conversations.get(conversationId);
      if (state) conversations.delete(conversationId);
      else {
        state = {
          previous: null,
          blocks: [],
          turnTail: createTurnTailState(),
          volatile: createVolatileState(),
          detector: createBreakDetector({
            counter: options.counter,
            ...(options.bus ? { bus: options.bus, sessionId: conversationId } : {}),
          }),
        };
      }
      conversations.set(conversationId, state);
      if (conversations.size > maxConversations) {
        const oldest = conversations.keys().next().value;
        if (oldest !== undefined) conversations.delete(oldest);
      }
      return state;
    },
    get size() {
      return conversations.size;
    },
  };
}

/** Leading blocks two requests share. */
export function sharedBlockCount(before: readonly PromptBlockHash[], after: readonly PromptBlockHash[]): number {
  let shared = 0;
  while (shared < before.length && shared < after.length && before[shared]!.hash === after[shared]!.hash) shared++;
  return shared;
}
