import type { ProviderId } from '../../providers/adapter.js';
import { conversationKey } from './conversation-key.js';
import type { Conversation, ConversationTracker } from './conversation-tracker.js';
import type { WireRoute } from './wire-route.js';

type JsonRecord = Record<string, unknown>;

export interface ConversationSessions {
  /** The conversation a request belongs to (created on its first request). */
  conversationOf(route: WireRoute, body: JsonRecord, header: string | null): Conversation;
  /** The session id of a conversation key on a provider, through this proxy. */
  sessionIdOf(key: string, provider: ProviderId): string;
}

/**
 * The proxy's key stage: a request's conversation key (`conversationKey`), and its session in
 * the trace store, `<key>@<provider>-<instance>`: clients of two APIs opening alike never share a
 * session, nor do two proxies writing one store.
 */
export function conversationSessions(
  tracker: ConversationTracker,
  instance: string,
  providerOf: (route: WireRoute) => ProviderId,
): ConversationSessions {
  const sessionIdOf = (key: string, provider: ProviderId) => `${key}@${provider}-${instance}`;
  return {
    sessionIdOf,
    conversationOf(route, body, header) {
      const key = conversationKey(route, body, header).id;
      const provider = providerOf(route);
      return tracker.get(sessionIdOf(key, provider), provider, key);
    },
  };
}
