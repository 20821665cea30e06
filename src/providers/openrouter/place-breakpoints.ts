import type { BreakpointRecord } from '../../events/catalog.js';
import type { CacheControlMarker, ChatPart } from '../openai-chat/chat-messages.js';
import { chooseBreakpoints, type ZoneAnchors } from '../openai-chat/place-breakpoints.js';

/**
 * `cache_control` markers for routes that pass them through (Anthropic): the end of the global
 * static zone, of the session static zone, and the last persisted history part before the tail.
 * At most three of Anthropic's four slots are used, leaving one for a caller's own marker.
 * Markers only ever go on text, image and file parts, never on reasoning, which Chat Completions
 * messages carry outside content parts.
 */
export function markCacheControl(anchors: ZoneAnchors<ChatPart>, maxMarkers: number, ttl: '5m' | '1h'): BreakpointRecord[] {
  const chosen = chooseBreakpoints(anchors, Math.min(3, maxMarkers));
  const marker: CacheControlMarker = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  for (const { anchor } of chosen) anchor.part.cache_control = { ...marker };
  return chosen.map((entry) => ({ ...entry.record, ttl }));
}
