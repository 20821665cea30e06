import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { ContentBlock, ToolDefinition } from './content.js';
import type { JsonValue } from './json.js';

/**
 * Whether `text` holds a surrogate code unit without its partner: `String.prototype.isWellFormed`
 * (ES2024, in every Node from 20), a native scan about 15× faster than the regex it replaced on
 * the block texts a prefix chain hashes (TypeScript's ES2023 lib does not declare it yet).
 */
function hasLoneSurrogate(text: string): boolean {
  return !(text as string & { isWellFormed(): boolean }).isWellFormed();
}
/** 0xFF never occurs in UTF-8, so a marked UTF-16 hash input can never equal a UTF-8 one. */
const UTF16_MARKER = Buffer.from([0xff]);

/**
 * SHA-256 of a string's exact code units. Well-formed text hashes as its UTF-8 bytes (the
 * usual hash). UTF-8 cannot carry a lone surrogate (Node writes U+FFFD for each, so
 * `"A\uD800"` and `"A\uDBFF"` would hash equal), so such text hashes as a marker byte plus
 * its UTF-16 code units instead.
 *
 * @example
 * sha256('A\uD800') !== sha256('A\uDBFF'); // true
 */
export function sha256(text: string): string {
  if (hasLoneSurrogate(text)) return createHash('sha256').update(UTF16_MARKER).update(text, 'utf16le').digest('hex');
  // The one-shot form (Node 20.12+) skips a Hash object per call: prefix chains hash every block.
  return oneShotHash ? oneShotHash('sha256', text, 'hex') : createHash('sha256').update(text, 'utf8').digest('hex');
}

/** `crypto.hash` where the running Node has it (a string is hashed as its UTF-8 bytes). */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

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
