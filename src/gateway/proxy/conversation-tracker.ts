import { type BreakDetector, createBreakDetector } from '../../cache/break/break-detector.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';

/** What the proxy remembers about one conversation between its requests. */
export interface Conversation {
  id: string;
  provider: ProviderId;
  detector: BreakDetector;
  /** Exchanges recorded so far (the next one's `turn`). */
  recorded: number;
  lastResponseId: string | null;
  lastBreakpointPosition: number | null;
  /** The previous recorded request: judged again only when this one reads less than it left cached. */
  previous: { body: unknown; at: number; cachedTokens: number } | null;
}

export interface ConversationTracker {
  get(id: string, provider: ProviderId): Conversation;
  readonly size: number;
}

/** The token counters every conversation's detector shares (so their memos are shared). */
export interface TrackerCounters {
  anthropic: TokenCounter;
  openai: TokenCounter;
}

/**
 * Conversations by id, least recently used first; beyond `limit` the oldest is forgotten (a
 * later request of it starts a new judged sequence rather than growing memory without bound).
 */
export function createConversationTracker(
  bus: EventBus | undefined,
  counters: TrackerCounters,
  limit = 10_000,
): ConversationTracker {
  const conversations = new Map<string, Conversation>();
  return {
    get(id, provider) {
      let conversation = conversations.get(id);
      if (conversation) {
        conversations.delete(id);
      } else {
        conversation = {
          id,
          provider,
          detector: createBreakDetector({
            format: provider,
            counter: providerEntry(provider).wire === 'anthropic-messages' ? counters.anthropic : counters.openai,
            ...(bus ? { bus, sessionId: id } : {}),
          }),
          recorded: 0,
          lastResponseId: null,
          lastBreakpointPosition: null,
          previous: null,
        };
        if (conversations.size >= limit) conversations.delete(conversations.keys().next().value as string);
      }
      conversations.set(id, conversation);
      return conversation;
    },
    get size() {
      return conversations.size;
    },
  };
}
