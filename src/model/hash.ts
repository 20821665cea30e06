import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ContentBlock, ToolDefinition } from './content.js';
import type { JsonValue } from './json.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Hashes are memoised per object: blocks are treated as immutable once created. */
const blockHashes = new WeakMap<object, string>();

/** The canonical bytes of a block, tool or system segment (what its hash covers). */
export function canonicalBytes(item: ContentBlock | ToolDefinition | { zone: string; text: string }): string {
  return canonicalJson(item as unknown as JsonValue);
}

/** SHA-256 of an item's canonical bytes, computed once per object. */
export function hashOf(item: ContentBlock | ToolDefinition | { zone: string; text: string }): string {
  const known = blockHashes.get(item);
  if (known !== undefined) return known;
  const hash = sha256(canonicalBytes(item));
  blockHashes.set(item, hash);
  return hash;
}

/** The cumulative hash of a prefix: the previous prefix hash chained with the next block's hash. */
export function chainHash(previousPrefixHash: string, blockHash: string): string {
  return sha256(`${previousPrefixHash}:${blockHash}`);
}

export const EMPTY_PREFIX_HASH = sha256('cachet:prefix:v1');
