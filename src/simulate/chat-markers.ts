import { isRecord, type JsonRecord } from '../cache/wire/json-helpers.js';

/**
 * Re-place `cache_control` markers on a Chat Completions body (OpenRouter's Anthropic routes),
 * the way a harness that marks by hand would: every existing marker is removed, then the first
 * `systemParts` parts of the system message and the last part of each of the last
 * `lastMessages` messages that have content parts are marked. Returns a new body.
 */
export function placeChatMarkers(body: unknown, placement: { systemParts: number; lastMessages: number }): unknown {
  if (!isRecord(body) || !Array.isArray(body.messages)) return body;
  const messages = (body.messages as unknown[]).map((message) => stripMarkers(message));
  const marker = { type: 'ephemeral' };
  const system = messages.find((message) => isRecord(message) && (message.role === 'system' || message.role === 'developer')) as
    | JsonRecord
    | undefined;
  if (system) {
    const parts = asParts(system);
    for (let index = 0; index < Math.min(placement.systemParts, parts.length); index++)
      (parts[index] as JsonRecord).cache_control = marker;
  }
  let marked = 0;
  for (let index = messages.length - 1; index >= 0 && marked < placement.lastMessages; index--) {
    const message = messages[index];
    if (!isRecord(message) || message === system || message.content === null || message.content === undefined) continue;
    const parts = asParts(message);
    const last = parts.at(-1);
    if (!isRecord(last)) continue;
    last.cache_control = marker;
    marked++;
  }
  return { ...body, messages };
}

function stripMarkers(message: unknown): unknown {
  if (!isRecord(message)) return message;
  const copy: JsonRecord = { ...message };
  if (Array.isArray(copy.content)) {
    copy.content = copy.content.map((part) => {
      if (!isRecord(part)) return part;
      const { cache_control: _removed, ...rest } = part;
      return rest;
    });
  }
  return copy;
}

/** The message's content as parts, converting a string content in place. */
function asParts(message: JsonRecord): unknown[] {
  if (typeof message.content === 'string') message.content = [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? (message.content as unknown[]) : [];
}
