import { type BreakDetector, createBreakDetector } from '../../cache/break/break-detector.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ProxyVolatileState } from './volatile-plan.js';

/** Conversations remembered at once, whatever their size. */
export const DEFAULT_MAX_CONVERSATIONS = 10_000;
/** Bytes of previous request bodies remembered across all conversations (wire bytes, kept as bytes). */
export const DEFAULT_CONVERSATION_BYTES = 256 * 1024 * 1024;

/** What the proxy remembers about one conversation between its requests. */
export interface Conversation {
  /** Session id in the trace store and the capture: the key, the provider and the proxy instance. */
  id: string;
  /** The conversation key the client's requests share (`conversationKey`), e.g. the OpenAI `prompt_cache_key` the plan sets. */
  key: string;
  provider: ProviderId;
  detector: BreakDetector;
  /** Exchanges recorded so far. */
  recorded: number;
  /** The last recorded exchange's turn and step: a user message opens the next turn, a tool result the next step. */
  turn: number;
  step: number;
  lastResponseId: string | null;
  lastBreakpointPosition: number | null;
  /**
   * The previous recorded request as sent upstream, in its wire bytes (parsed again only when
   * the next request reads less than it left cached).
   */
  previous: { bytes: Uint8Array; at: number; cachedTokens: number } | null;
  /** `--volatile auto`: created at the conversation's first planned request. */
  volatile?: ProxyVolatileState;
}

export interface ConversationTracker {
  get(id: string, provider: ProviderId, key?: string): Conversation;
  /** Set a conversation's previous request, charging its bytes to the budget (evicting the least recent). */
  remember(conversation: Conversation, previous: NonNullable<Conversation['previous']>): void;
  readonly size: number;
  /** Bytes of previous bodies held. */
  readonly bytes: number;
  /** Conversations forgotten to stay within the count or the byte budget. */
  readonly evictions: number;
}

/** The token counters every conversation's detector shares (so their memos are shared). */
export interface TrackerCounters {
  anthropic: TokenCounter;
  openai: TokenCounter;
}

export interface TrackerLimits {
  /** [10,000] */
  maxConversations?: number;
  /** [256 MiB] */
  maxBytes?: number;
}

/**
 * Conversations by id, least recently used first. Beyond `maxConversations`, or when their
 * previous bodies together exceed `maxBytes`, the least recent are forgotten (a later request of
 * one starts a new judged sequence rather than growing memory without bound); `evictions` counts them.
 */
export function createConversationTracker(
  bus: EventBus | undefined,
  counters: TrackerCounters,
  limits: TrackerLimits = {},
): ConversationTracker {
  const maxConversations = limits.maxConversations ?? DEFAULT_MAX_CONVERSATIONS;
  const maxBytes = limits.maxBytes ?? DEFAULT_CONVERSATION_BYTES;
  const conversations = new Map<string, Conversation>();
  let bytes = 0;
  let evictions = 0;
  const evictOldest = (keep: Conversation) => {
    for (const [id, oldest] of conversations) {
      if (oldest === keep) continue;
      conversations.delete(id);
      bytes -= oldest.previous?.bytes.byteLength ?? 0;
      evictions++;
      return true;
    }
    return false;
  };
  return {
    get(id, provider, key = id) {
      let conversation = conversations.get(id);
      if (conversation) {
        conversations.delete(id);
      } else {
        conversation = {
          id,
          key,
          provider,
          detector: createBreakDetector({
            format: provider,
            counter: providerEntry(provider).wire === 'anthropic-messages' ? counters.anthropic : counters.openai,
            ...(bus ? { bus, sessionId: id } : {}),
          }),
          recorded: 0,
          turn: 0,
          step: 0,
          lastResponseId: null,
          lastBreakpointPosition: null,
          previous: null,
        };
        if (conversations.size >= maxConversations) evictOldest(conversation);
      }
      conversations.set(id, conversation);
      return conversation;
    },
    remember(conversation, previous) {
      const held = conversations.get(conversation.id) === conversation;
      if (held) bytes -= conversation.previous?.bytes.byteLength ?? 0;
      // A body larger than the whole budget is not kept: its successor starts a new judged sequence.
      conversation.previous = previous.bytes.byteLength <= maxBytes ? compact(previous) : null;
      if (!held) return;
      bytes += conversation.previous?.bytes.byteLength ?? 0;
      while (bytes > maxBytes && evictOldest(conversation)) {}
    },
    get size() {
      return conversations.size;
    },
    get bytes() {
      return bytes;
    },
    get evictions() {
      return evictions;
    },
  };
}

/**
 * The previous body in memory of its own size: a view into a larger buffer (a socket read holding
 * other bytes too) would keep all of it alive while the budget counts only the view.
 */
function compact(previous: NonNullable<Conversation['previous']>): NonNullable<Conversation['previous']> {
  const { bytes } = previous;
  return bytes.byteLength === bytes.buffer.byteLength ? previous : { ...previous, bytes: bytes.slice() };
}
