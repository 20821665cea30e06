import { createHash } from 'node:crypto';
import type { JsonRecord } from '../../cache/wire/json-helpers.js';
import type { WireRoute } from './wire-route.js';

/**
 * The header a client sets to name its conversation; Cachet reads it and does not forward it.
 * Kept here, not beside the node:http header helpers, so that `cachet/gateway`'s declarations need no @types/node.
 */
export const CONVERSATION_HEADER = 'x-cachet-conversation';

const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a conversation id came from, in order of preference. */
export type ConversationSource = 'header' | 'metadata.user_id' | 'prompt_cache_key' | 'prefix-hash';

/**
 * The conversation a request belongs to, so its requests are judged against each other: the
 * `x-cachet-conversation` header when the client sets it; Anthropic `metadata.user_id`; OpenAI
 * `prompt_cache_key`; otherwise a hash of the conversation's first user message (markers removed),
 * which every later request repeats even when the system prompt, tools or model change (the
 * changes the proxy is there to catch). Conversations opening with the same message share a key
 * (the proxy's session ids add the provider and the proxy instance): set the header to tell them apart.
 *
 * @example
 * conversationKey('anthropic', body, null); // { id: 'prefix-3f2a…', source: 'prefix-hash' }
 */
export function conversationKey(
  route: WireRoute,
  body: JsonRecord,
  header: string | null,
): { id: string; source: ConversationSource } {
  if (header) return { id: header, source: 'header' };
  if (route === 'anthropic' && isRecord(body.metadata) && typeof body.metadata.user_id === 'string') {
    return { id: body.metadata.user_id, source: 'metadata.user_id' };
  }
  if (route !== 'anthropic' && typeof body.prompt_cache_key === 'string') {
    return { id: body.prompt_cache_key, source: 'prompt_cache_key' };
  }
  const items = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [body.input];
  const first = (items as unknown[]).find((item) => !isSystemItem(item)) ?? body.system ?? body.instructions ?? null;
  // Markers move between requests and say nothing about which conversation this is.
  const text = JSON.stringify(first, (key, value) => (key === 'cache_control' ? undefined : value));
  return { id: `prefix-${prefixHash(text)}`, source: 'prefix-hash' };
}

/** Opening texts whose hash is remembered, and the longest remembered (at most 512 × 4 KB held). */
const HASHES_REMEMBERED = 512;
const LONGEST_REMEMBERED = 4096;
const hashes = new Map<string, string>();

/** The first 16 hex digits of the text's SHA-256; a conversation's every request hashes the same opening. */
function prefixHash(text: string): string {
  let hash = hashes.get(text);
  if (hash !== undefined) return hash;
  hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  if (text.length <= LONGEST_REMEMBERED) {
    if (hashes.size >= HASHES_REMEMBERED) hashes.delete(hashes.keys().next().value as string);
    hashes.set(text, hash);
  }
  return hash;
}

function isSystemItem(item: unknown): boolean {
  return isRecord(item) && (item.role === 'system' || item.role === 'developer');
}
