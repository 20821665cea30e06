import { canonicalJson } from '../model/canonical-json.js';
import type { JsonValue } from '../model/json.js';
import type { CanonicalRequest, Zone } from '../model/request.js';

/** One block of a request with the canonical bytes its hash covers. */
export interface BlockBytes {
  zone: Zone;
  path: string;
  hash: string;
  prefixHash: string;
  /**
   * Canonical JSON of the block. Message blocks carry their role first (`user:{...}`), because
   * the same block under another role is another prefix.
   */
  text: string;
}

/**
 * The blocks of a request with their canonical bytes, in prefix order. This is Cachet's
 * provider-neutral serialisation, not a wire body: adapters add framing, but a byte that
 * differs here differs on every wire.
 */
export function blockBytes(request: CanonicalRequest): BlockBytes[] {
  const texts: string[] = [];
  for (const tool of request.tools) texts.push(canonicalJson(tool as unknown as JsonValue));
  for (const segment of request.system) texts.push(canonicalJson(segment as unknown as JsonValue));
  for (const message of request.messages) {
    for (const block of message.content) texts.push(`${message.role}:${canonicalJson(block as unknown as JsonValue)}`);
  }
  for (const item of request.tail.items) texts.push(canonicalJson(item as unknown as JsonValue));
  return request.blocks.map((record, index) => ({ ...record, text: texts[index] ?? '' }));
}

/** UTF-8 length of a string. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Index of the first differing UTF-16 unit of two strings (their common length when one extends the other). */
export function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) if (a.charCodeAt(index) !== b.charCodeAt(index)) return index;
  return length;
}

const EXCERPT_RADIUS = 40;

/** A short excerpt of `text` around `offset`, with `…` where it was cut; control characters escaped so they show. */
export function excerptAround(text: string, offset: number): string {
  const start = Math.max(0, offset - EXCERPT_RADIUS);
  const end = Math.min(text.length, offset + EXCERPT_RADIUS);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
  const body = text.slice(start, end).replace(/[\u0000-\u001f]/g, (character) => JSON.stringify(character).slice(1, -1));
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}
