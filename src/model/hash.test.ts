import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TextBlock, ToolDefinition } from './content.js';
import { canonicalBytes, chainHash, EMPTY_PREFIX_HASH, hashOf, sha256 } from './hash.js';

describe('hashing', () => {
  it('hashes canonical bytes, so key order does not matter', () => {
    const a: ToolDefinition = {
      name: 't',
      description: 'd',
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
    };
    const b = {
      inputSchema: { properties: { x: { type: 'string' } }, type: 'object' },
      description: 'd',
      name: 't',
    } as ToolDefinition;
    expect(canonicalBytes(a)).toBe(canonicalBytes(b));
    expect(hashOf(a)).toBe(hashOf(b));
    expect(hashOf(a)).toBe(sha256(canonicalBytes(a)));
  });

  it('distinguishes different content', () => {
    expect(hashOf({ type: 'text', text: 'a' })).not.toBe(hashOf({ type: 'text', text: 'b' }));
  });

  it('memoises per object: a block is hashed once, at first use', () => {
    const block: TextBlock = { type: 'text', text: 'before' };
    const first = hashOf(block);
    // Blocks are immutable by contract (the session freezes them); mutating one shows the memo.
    block.text = 'after';
    expect(hashOf(block)).toBe(first);
    expect(hashOf({ type: 'text', text: 'after' })).not.toBe(first);
  });

  it('chains prefix hashes in order', () => {
    const one = sha256('one');
    const two = sha256('two');
    const ab = chainHash(chainHash(EMPTY_PREFIX_HASH, one), two);
    const ba = chainHash(chainHash(EMPTY_PREFIX_HASH, two), one);
    expect(ab).not.toBe(ba);
    // The documented chain, computed here with node:crypto: sha256("<previous>:<block>") from a fixed seed.
    const hex = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(EMPTY_PREFIX_HASH).toBe(hex('cachet:prefix:v1'));
    expect(ab).toBe(hex(`${hex(`${EMPTY_PREFIX_HASH}:${one}`)}:${two}`));
  });
});
