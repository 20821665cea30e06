import { type BreakDetector, createBreakDetector } from '../../cache/break/break-detector.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { compactBody, type OutgoingBody } from './body-pieces.js';
import { isLent } from './body-slabs.js';
import { keptSharing } from './kept-body.js';
import type { ParsedHistory } from './reuse-parse.js';
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
  previous: { bytes: OutgoingBody; at: number; cachedTokens: number } | null;
  /** `--volatile auto`: created at the conversation's first planned request. */
  volatile?: ProxyVolatileState;
  /** `--plan`: the last client body's bytes and parsed history, for `parseReusing` (charged twice its bytes). */
  history?: ParsedHistory;
}

export interface ConversationTracker {
  get(id: string, provider: ProviderId, key?: string): Conversation;
  /** Set a conversation's previous request, charging its bytes to the budget (evicting the least recent). */
  remember(conversation: Conversation, previous: NonNullable<Conversation['previous']>): void;
  /** Set a conversation's parsed history (`--plan`), charged twice its body's bytes, like `remember`. */
  keepHistory(conversation: Conversation, history: ParsedHistory | null): void;
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
      bytes -= chargeOf(oldest);
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
      if (held) bytes -= chargeOf(conversation);
      // A body larger than the whole budget is not kept: its successor starts a new judged sequence.
      conversation.previous = previous.bytes.byteLength <= maxBytes ? compact(previous, conversation.previous?.bytes) : null;
      if (chargeOf(conversation) > maxBytes) conversation.history = undefined;
      if (!held) return;
      bytes += chargeOf(conversation);
      while (bytes > maxBytes && evictOldest(conversation)) {}
    },
    keepHistory(conversation, history) {
      const held = conversations.get(conversation.id) === conversation;
      if (held) bytes -= chargeOf(conversation);
      conversation.history = history ?? undefined;
      if (chargeOf(conversation) > maxBytes) conversation.history = undefined;
      if (!held) return;
      bytes += chargeOf(conversation);
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

/** Bytes a conversation holds: its previous body, and its parsed history with the bytes it was parsed from. */
function chargeOf(conversation: Conversation): number {
  return (conversation.previous?.bytes.byteLength ?? 0) + 2 * (conversation.history?.bytes.byteLength ?? 0);
}

/**
 * The previous body in memory of its own size: a view into a larger buffer (a socket read holding
 * other bytes too) would keep all of it alive while the budget counts only the view. A lent body
 * (its memory reused after the exchange) is kept sharing the last kept body's memory (`keptSharing`).
 */
function compact(
  previous: NonNullable<Conversation['previous']>,
  last: OutgoingBody | undefined,
): NonNullable<Conversation['previous']> {
  const bytes = isLent(previous.bytes) ? keptSharing(last, previous.bytes as Uint8Array) : compactBody(previous.bytes);
  return bytes === previous.bytes ? previous : { ...previous, bytes };
}
